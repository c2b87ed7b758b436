/**
 * The steps an engine's agent takes, read from its stream as it runs (issue 38): a tool and a short argument
 * (`Bash: npm test`, `Edit: src/sum.js`), or what it said. Claude Code (`stream-json`): each `assistant` line's
 * `tool_use` and `text` blocks. Codex (`--json`): `item.started` of a command, `item.completed` of a file change,
 * a tool call, a search or a message. Gemini CLI (`stream-json`): each `tool_use` (its tool names, e.g.
 * `run_shell_command`, `write_file`, `replace`) and each assistant `message` piece that starts a message. The text
 * is the agent's, so untrusted: faces make it inert. Copilot CLI (`--output-format json`): each
 * `tool.execution_start` (`bash`, `view`, `create`, `edit`, ...) and each `assistant.message` with text. Pure.
 */
import type { Engine } from '../../graph/model.js';
import { oneLine } from './text.js';

/** One step: the tool (or `Said`) and its argument in one line, bounded. */
export interface AgentStep {
  tool: string;
  arg: string;
}

const ARG_CHARS = 120;
/** How much of what the agent said a step shows. */
export const SAID_CHARS = ARG_CHARS;

/** The one input field that says what a Claude Code tool call does. */
const CLAUDE_ARG = [
  'command',
  'file_path',
  'path',
  'notebook_path',
  'pattern',
  'url',
  'query',
  'description',
  'prompt',
];

function claudeSteps(e: Record<string, unknown>): AgentStep[] {
  const m = e.message as { model?: unknown; content?: unknown } | undefined;
  if (e.type !== 'assistant' || m?.model === '<synthetic>' || !Array.isArray(m?.content)) return [];
  return (m.content as Record<string, unknown>[]).flatMap((b): AgentStep[] => {
    if (b?.type === 'tool_use') {
      const input = (b.input ?? {}) as Record<string, unknown>;
      const key = CLAUDE_ARG.find((k) => typeof input[k] === 'string');
      return [{ tool: oneLine(b.name, 40) || 'tool', arg: key ? oneLine(input[key], ARG_CHARS) : '' }];
    }
    if (b?.type === 'text' && oneLine(b.text)) return [{ tool: 'Said', arg: oneLine(b.text, ARG_CHARS) }];
    return [];
  });
}

function codexSteps(e: Record<string, unknown>): AgentStep[] {
  const item = (e.item ?? {}) as Record<string, unknown>;
  if (e.type === 'item.started' && item.type === 'command_execution')
    return [{ tool: 'Shell', arg: oneLine(item.command, ARG_CHARS) }];
  if (e.type !== 'item.completed') return [];
  if (item.type === 'file_change' && Array.isArray(item.changes))
    return (item.changes as { path?: unknown; kind?: unknown }[]).map((c) => ({
      tool: c.kind === 'add' ? 'Write' : c.kind === 'delete' ? 'Delete' : 'Edit',
      arg: oneLine(c.path, ARG_CHARS),
    }));
  if (item.type === 'mcp_tool_call')
    return [{ tool: oneLine(item.tool, 40) || 'tool', arg: oneLine(item.server, 60) }];
  if (item.type === 'web_search') return [{ tool: 'Search', arg: oneLine(item.query, ARG_CHARS) }];
  if (item.type === 'agent_message' && oneLine(item.text))
    return [{ tool: 'Said', arg: oneLine(item.text, ARG_CHARS) }];
  return [];
}

/** The one argument that says what a Gemini CLI or Copilot CLI tool call does. */
const GEMINI_ARG = ['command', 'file_path', 'absolute_path', 'path', 'dir_path', 'pattern', 'url', 'query'];

function geminiSteps(e: Record<string, unknown>): AgentStep[] {
  if (e.type === 'tool_use') {
    const p = (e.parameters ?? {}) as Record<string, unknown>;
    const key = GEMINI_ARG.find((k) => typeof p[k] === 'string');
    return [{ tool: oneLine(e.tool_name, 40) || 'tool', arg: key ? oneLine(p[key], ARG_CHARS) : '' }];
  }
  if (e.type === 'message' && e.role === 'assistant' && oneLine(e.content))
    return [{ tool: 'Said', arg: oneLine(e.content, ARG_CHARS) }];
  return [];
}

function copilotSteps(e: Record<string, unknown>): AgentStep[] {
  const d = (e.data ?? {}) as Record<string, unknown>;
  if (e.type === 'tool.execution_start') {
    const a = (d.arguments ?? {}) as Record<string, unknown>;
    const key = GEMINI_ARG.find((k) => typeof a[k] === 'string');
    return [{ tool: oneLine(d.toolName, 40) || 'tool', arg: key ? oneLine(a[key], ARG_CHARS) : '' }];
  }
  if (e.type === 'assistant.message' && oneLine(d.content))
    return [{ tool: 'Said', arg: oneLine(d.content, ARG_CHARS) }];
  return [];
}

/** The steps one event of an engine's stream shows. */
export function stepsOf(engine: Engine, event: Record<string, unknown>): AgentStep[] {
  if (engine === 'copilot') return copilotSteps(event);
  if (engine === 'gemini') return geminiSteps(event);
  return engine === 'codex' ? codexSteps(event) : claudeSteps(event);
}
