// The real agent CLIs run a small task against the scripted model server, offline: each calls the tool the script
// asks for, the tool's effect is in the workspace, and the CLI reports the usage the server sent.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentHome,
  CODEX_MODEL,
  claudeBin,
  claudeEnv,
  codexBin,
  codexConfigArgs,
  codexEnv,
  copilotBin,
  copilotEnv,
  geminiBin,
  geminiEnv,
  missing,
  runAgent,
} from '../support/agent-clis.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'interlock-agent-work-'));
  writeFileSync(join(dir, 'a.txt'), 'hello\n');
  return dir;
}

describe.skipIf(missing('claude'))('Claude Code against the scripted server', () => {
  it('runs a Bash tool call, then ends with a JSON result carrying the usage it was sent', async () => {
    server = await startModelServer({
      script: [
        {
          text: 'Copying.',
          tools: [{ name: 'Bash', input: { command: 'cp a.txt b.txt', description: 'copy' } }],
        },
        { text: 'Copied.', usage: { input_tokens: 300, output_tokens: 11 } },
      ],
    });
    const cwd = workspace();
    const r = await runAgent(claudeBin!, ['-p', '--output-format', 'json', '--allowedTools', 'Bash'], {
      cwd,
      env: claudeEnv(server.url, agentHome('claude')),
      stdin: 'Copy a.txt to b.txt.',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'b.txt'), 'utf8')).toBe('hello\n');
    const result = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(result).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      num_turns: 2,
      result: 'Copied.',
    });
    expect((result.usage as { output_tokens: number }).output_tokens).toBe(20 + 11);
    expect(server.calls.map((c) => c.path)).toEqual(['/v1/messages', '/v1/messages']);
    // The second call carries the tool's result back to the model.
    expect(JSON.stringify(server.calls[1]!.body!.messages)).toContain('tool_result');
  });
});

describe.skipIf(missing('codex'))('Codex against the scripted server', () => {
  it('runs an exec_command call, then reports thread, command and usage as JSON events', async () => {
    server = await startModelServer({
      script: [
        { text: 'Copying.', tools: [{ name: 'exec_command', input: { cmd: 'cp a.txt b.txt' } }] },
        { text: 'Copied.', usage: { input_tokens: 300, cached_input_tokens: 100, output_tokens: 11 } },
      ],
    });
    const cwd = workspace();
    const r = await runAgent(
      codexBin!,
      [
        ...codexConfigArgs(server.url),
        'exec',
        '--json',
        '-m',
        CODEX_MODEL,
        '--skip-git-repo-check',
        '--sandbox',
        'workspace-write',
        '-',
      ],
      { cwd, env: codexEnv(agentHome('codex')), stdin: 'Copy a.txt to b.txt.' },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(cwd, 'b.txt'))).toBe(true);
    const evs = r.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map(
        (l) =>
          JSON.parse(l) as { type: string; thread_id?: string; item?: { type: string }; usage?: unknown },
      );
    expect(evs[0]).toMatchObject({ type: 'thread.started' });
    expect(evs.some((e) => e.type === 'item.completed' && e.item?.type === 'command_execution')).toBe(true);
    // OpenAI's input_tokens include the cached ones: 100 + (300 + 100).
    expect(evs.find((e) => e.type === 'turn.completed')?.usage).toMatchObject({
      input_tokens: 500,
      cached_input_tokens: 100,
      output_tokens: 31,
    });
    expect(server.calls.map((c) => c.path)).toEqual(['/v1/responses', '/v1/responses']);
  });
});

const jsonEvents = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe.skipIf(missing('gemini'))('Gemini CLI against the scripted Gemini API', () => {
  it('runs a run_shell_command call, then reports session, tool and usage as stream-json events', async () => {
    server = await startModelServer({
      script: [
        { text: 'Copying.', tools: [{ name: 'run_shell_command', input: { command: 'cp a.txt b.txt' } }] },
        { text: 'Copied.', usage: { input_tokens: 300, cached_input_tokens: 100, output_tokens: 11 } },
      ],
    });
    const cwd = workspace();
    const r = await runAgent(
      geminiBin!,
      ['--output-format', 'stream-json', '--approval-mode', 'yolo', '--skip-trust'],
      {
        cwd,
        env: geminiEnv(server.url, agentHome('gemini')),
        stdin: 'Copy a.txt to b.txt.',
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'b.txt'), 'utf8')).toBe('hello\n');
    const evs = jsonEvents(r.stdout);
    expect(evs[0]).toMatchObject({ type: 'init', model: 'gemini-2.5-flash' });
    expect(evs.some((e) => e.type === 'tool_use' && e.tool_name === 'run_shell_command')).toBe(true);
    // promptTokenCount holds the cached tokens: 100 + (300 + 100) in all.
    expect(evs.at(-1)).toMatchObject({
      type: 'result',
      status: 'success',
      stats: { input_tokens: 500, output_tokens: 31 },
    });
    expect(server.calls.map((c) => c.query)).toEqual(['?alt=sse', '?alt=sse']);
    expect(server.calls.every((c) => c.headers['x-goog-api-key'] === 'scripted-gemini-key')).toBe(true);
  });
});

describe.skipIf(missing('copilot'))('Copilot CLI against the scripted Anthropic API as its provider', () => {
  it('runs a bash call with its own tool names, then ends with a result naming its session', async () => {
    server = await startModelServer({
      script: [
        {
          text: 'Copying.',
          tools: [{ name: 'bash', input: { command: 'cp a.txt b.txt', description: 'copy' } }],
        },
        { text: 'Copied.' },
      ],
    });
    const cwd = workspace();
    const r = await runAgent(copilotBin!, ['--allow-all', '--output-format', 'json'], {
      cwd,
      env: copilotEnv(server.url, agentHome('copilot')),
      stdin: 'Copy a.txt to b.txt.',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'b.txt'), 'utf8')).toBe('hello\n');
    const evs = jsonEvents(r.stdout);
    expect(evs.some((e) => e.type === 'tool.execution_complete')).toBe(true);
    expect(evs.at(-1)).toMatchObject({ type: 'result', exitCode: 0 });
    expect(server.calls.map((c) => c.path)).toEqual(['/v1/messages', '/v1/messages']);
    // The tools it offers are its own (bash, view, edit, ...), not Claude Code's.
    const tools = (server.calls[0]!.body!.tools as { name: string }[]).map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['bash', 'view', 'edit', 'create']));
  });
});
