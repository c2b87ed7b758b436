/**
 * What an engine's agent has used so far, read from its streamed output while it runs, and whether that is over
 * what the attempt may use: the node's budget, or what is left of the run's. Pure: chunks in, usage out.
 *
 * Claude Code (`stream-json --verbose`): one `assistant` line per content block, each with its message's `id`
 * and `usage`; a model call is a distinct message id (`<synthetic>` messages are Claude Code's own). Codex
 * (`--json`): a model call that asks for a tool shows as that tool's `item.started`; `turn.completed` carries the
 * thread's usage. Gemini CLI (`stream-json`): a model call that asks for a tool shows as its `tool_use`; tokens
 * come only with its last `result`. Copilot CLI (`--output-format json`): one `assistant.message` per model call;
 * tokens only in the usage file printed after it ends. Cost is known only from Claude Code's final result, so it is checked after the
 * attempt.
 */

import type { Engine } from '../../graph/model.js';
import type { Budget } from '../../graph/schema/budget.js';
import type { Spent } from '../../journal/state.js';
import { amount } from '../budget.js';
import { readCopilot, USAGE_FILE_EVENT } from './copilot.js';
import { type AgentStep, SAID_CHARS, stepsOf } from './steps.js';
import { oneLine } from './text.js';

/** Usage seen so far. */
export interface LiveUsage {
  turns: number;
  input_tokens: number;
  output_tokens: number;
}

const CODEX_TOOLS = new Set(['command_execution', 'file_change', 'mcp_tool_call', 'web_search']);

const count = (v: unknown) => (Number.isSafeInteger(v) && (v as number) > 0 ? (v as number) : 0);

/** How many of the agent's last steps a meter keeps (the live view shows a few of them). */
const STEPS_KEPT = 8;

/** Reads an engine's stdout as it comes. */
export class EngineMeter {
  private pending = '';
  private readonly calls = new Map<string, { input: number; output: number }>();
  private readonly tools = new Set<string>();
  private turnsDone = 0;
  /** The usage Codex's last `turn.completed` or Gemini CLI's `result` reported. */
  private reported = { input: 0, output: 0 };
  /** Gemini CLI's assistant message so far, while its pieces come (the next piece is the same message). */
  private saying: string | undefined;
  /** The last steps the agent took (`STEPS_KEPT`), and how many it took in all. */
  readonly steps: AgentStep[] = [];
  stepCount = 0;

  constructor(private readonly engine: Engine) {}

  push(chunk: Buffer | string): void {
    this.pending += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    const lines = this.pending.split('\n');
    this.pending = lines.pop() ?? '';
    // A line longer than any event interlock reads is dropped rather than held.
    if (this.pending.length > 4_000_000) this.pending = '';
    for (const line of lines) this.line(line.trim());
  }

  private line(line: string): void {
    if (!line.startsWith('{')) return;
    let e: Record<string, unknown>;
    try {
      e = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    const piece = this.engine === 'gemini' && e.type === 'message' && e.role === 'assistant';
    const continued = piece && this.saying !== undefined;
    if (this.engine === 'gemini')
      this.saying = piece ? `${this.saying ?? ''}${String(e.content ?? '')}` : undefined;
    // A further piece of the message the last step shows: that step grows, no new one.
    const last = this.steps.at(-1);
    if (continued && last?.tool === 'Said') last.arg = oneLine(this.saying, SAID_CHARS);
    for (const step of continued ? [] : stepsOf(this.engine, e)) {
      this.stepCount += 1;
      this.steps.push(step);
      if (this.steps.length > STEPS_KEPT) this.steps.shift();
    }
    if (this.engine === 'claude-code') {
      const m = e.message as { id?: unknown; model?: unknown; usage?: Record<string, unknown> } | undefined;
      if (e.type !== 'assistant' || typeof m?.id !== 'string' || m.model === '<synthetic>') return;
      const u = m.usage ?? {};
      const input =
        count(u.input_tokens) + count(u.cache_creation_input_tokens) + count(u.cache_read_input_tokens);
      this.calls.set(m.id, { input, output: count(u.output_tokens) });
      return;
    }
    if (this.engine === 'copilot') {
      const d = (e.data ?? {}) as Record<string, unknown>;
      if (e.type === 'assistant.message') this.tools.add(String(d.messageId ?? this.tools.size));
      if (e.type === USAGE_FILE_EVENT) {
        const u = readCopilot(JSON.stringify(e)).usage.usage;
        this.reported = { input: count(u.input_tokens), output: count(u.output_tokens) };
      }
      return;
    }
    if (this.engine === 'gemini') {
      if (e.type === 'tool_use') this.tools.add(String(e.tool_id ?? this.tools.size));
      if (e.type !== 'result') return;
      if (e.status === 'success') this.turnsDone += 1;
      const u = (e.stats ?? {}) as Record<string, unknown>;
      this.reported = { input: count(u.input_tokens), output: count(u.output_tokens) };
      return;
    }
    const item = e.item as { id?: unknown; type?: unknown } | undefined;
    if (e.type === 'item.started' && CODEX_TOOLS.has(item?.type as string))
      this.tools.add(String(item?.id ?? this.tools.size));
    if (e.type === 'turn.completed') {
      this.turnsDone += 1;
      const u = (e.usage ?? {}) as Record<string, unknown>;
      this.reported = { input: count(u.input_tokens), output: count(u.output_tokens) };
    }
  }

  /** The usage seen so far. */
  usage(): LiveUsage {
    if (this.engine === 'claude-code') {
      let input = 0;
      let output = 0;
      for (const c of this.calls.values()) {
        input += c.input;
        output += c.output;
      }
      return { turns: this.calls.size, input_tokens: input, output_tokens: output };
    }
    return {
      turns: this.tools.size + this.turnsDone,
      input_tokens: this.reported.input,
      output_tokens: this.reported.output,
    };
  }
}

/** What an attempt may use while it runs: its node's budget and what is left of the run's. */
export interface LiveLimits {
  node?: Budget;
  /** The run's budget and what the run spent before this attempt. */
  run?: { budget: Budget; spent: Spent };
}

/** Why the agent must stop now (its usage is over a limit it can only pass further), or undefined. */
export function overLiveLimit(limits: LiveLimits, u: LiveUsage): string | undefined {
  const used = { turns: u.turns, tokens: u.input_tokens + u.output_tokens };
  for (const k of ['turns', 'tokens'] as const) {
    const nodeMax = limits.node?.[k];
    if (nodeMax !== undefined && used[k] > nodeMax)
      return `the agent was stopped after ${amount(k, used[k])}: over the node's budget of ${amount(k, nodeMax)} (budget.${k})`;
    const runMax = limits.run?.budget[k];
    if (runMax !== undefined) {
      const left = Math.max(0, runMax - limits.run!.spent[k]);
      if (used[k] > left)
        return `the agent was stopped after ${amount(k, used[k])}: over what was left of the run's budget, ${amount(k, left)} of ${amount(k, runMax)} (budget.${k})`;
    }
  }
  return undefined;
}
