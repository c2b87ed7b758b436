// Reading the engines' output (src/protocol/engine*.ts): what interlock appends, what it reads at the end, what
// it counts while the agent runs, and when that is over what the attempt may use. Shapes as the real CLIs print
// them (test/agents/ runs the CLIs themselves).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { engineCommand, readEngine } from '../../src/protocol/engines/engine.js';
import { EngineMeter, overLiveLimit } from '../../src/protocol/engines/meter.js';

const line = (o: unknown) => `${JSON.stringify(o)}\n`;
const assistant = (id: string, model = 'claude-sonnet-4-5') =>
  line({
    type: 'assistant',
    message: { id, model, usage: { input_tokens: 100, cache_read_input_tokens: 10, output_tokens: 5 } },
  });

describe('engines', () => {
  it('appends its flags to the agent command, quoted for the shell', () => {
    expect(engineCommand('claude -p --allowedTools Bash ', 'claude-code', { maxTurns: 3 })).toBe(
      'claude -p --allowedTools Bash --output-format stream-json --verbose --max-turns 3',
    );
    expect(engineCommand('codex exec', 'codex', {})).toBe('codex exec --json -');
  });

  it("points Codex's own provider at the key proxy when it serves the OpenAI key", () => {
    expect(engineCommand('codex exec', 'codex', { openaiBaseUrl: 'http://127.0.0.1:4100/v1' })).toBe(
      `codex exec -c 'openai_base_url="http://127.0.0.1:4100/v1"' --json -`,
    );
  });

  it('a Codex error it recovered from (a WebSocket it fell back from) does not fail a turn that completed', () => {
    const out =
      line({ type: 'error', message: 'Reconnecting... 2/5 (unexpected status 404 Not Found)' }) +
      line({ type: 'turn.completed', usage: { input_tokens: 10, output_tokens: 2 } });
    expect(readEngine('codex', out, {}).failure).toBeUndefined();
    const failed =
      line({ type: 'turn.completed', usage: {} }) + line({ type: 'error', message: 'stream closed' });
    expect(readEngine('codex', failed, {}).failure?.message).toBe('the model API failed: stream closed');
  });

  it('counts Claude Code model calls by message id, not by content block, and not its own synthetic messages', () => {
    const m = new EngineMeter('claude-code');
    m.push(assistant('msg_1') + assistant('msg_1') + assistant('x', '<synthetic>'));
    m.push(assistant('msg_2').slice(0, 20));
    expect(m.usage()).toEqual({ turns: 1, input_tokens: 110, output_tokens: 5 });
    m.push(assistant('msg_2').slice(20));
    expect(m.usage().turns).toBe(2);
  });

  it('counts a Codex model call at the start of the tool call it asked for', () => {
    const m = new EngineMeter('codex');
    m.push(line({ type: 'item.started', item: { id: 'item_1', type: 'command_execution' } }));
    m.push(line({ type: 'item.completed', item: { id: 'item_1', type: 'command_execution' } }));
    m.push(line({ type: 'item.started', item: { id: 'item_2', type: 'agent_message' } }));
    expect(m.usage().turns).toBe(1);
  });

  it('Gemini CLI: its flags, its session, its final message after the last tool, its tokens and its API error', () => {
    expect(
      engineCommand('gemini --approval-mode yolo', 'gemini', { resume: { id: 'u-1', engine: 'gemini' } }),
    ).toBe('gemini --approval-mode yolo --output-format stream-json --skip-trust --resume u-1');
    // Recorded from Gemini CLI 0.61.0 against the scripted server (test/agents/engines.test.ts runs it).
    const ok =
      line({ type: 'init', session_id: '0f8e99a1-a634-48e8-856c-94fe41ceed13', model: 'gemini-2.5-flash' }) +
      line({ type: 'message', role: 'user', content: 'Copy a.txt to b.txt.' }) +
      line({ type: 'message', role: 'assistant', content: 'Copying.', delta: true }) +
      line({
        type: 'tool_use',
        tool_name: 'run_shell_command',
        tool_id: 't1',
        parameters: { command: 'cp a b' },
      }) +
      line({ type: 'tool_result', tool_id: 't1', status: 'success', output: '' }) +
      line({ type: 'message', role: 'assistant', content: 'Copied ', delta: true }) +
      line({ type: 'message', role: 'assistant', content: 'it.', delta: true }) +
      line({
        type: 'result',
        status: 'success',
        stats: { input_tokens: 500, output_tokens: 31, cached: 100, input: 400 },
      });
    expect(readEngine('gemini', ok, {})).toEqual({
      usage: { usage: { input_tokens: 500, output_tokens: 31, turns: 2 }, warnings: [] },
      session_id: '0f8e99a1-a634-48e8-856c-94fe41ceed13',
      final_message: 'Copied it.',
    });
    const m = new EngineMeter('gemini');
    m.push(ok);
    expect(m.usage()).toEqual({ turns: 2, input_tokens: 500, output_tokens: 31 });
    // One step per message, not per streamed piece.
    expect(m.steps.map((s) => s.tool)).toEqual(['Said', 'run_shell_command', 'Said']);
    // The step shows the whole message, its pieces joined as they came.
    expect(m.steps.at(-1)).toEqual({ tool: 'Said', arg: 'Copied it.' });
    const apiError = line({
      type: 'result',
      status: 'error',
      error: {
        type: 'unknown',
        message: '[API Error: {"error":{"code":400,"message":"too long","status":"INVALID_ARGUMENT"}}]',
      },
      stats: { input_tokens: 0, output_tokens: 0 },
    });
    expect(readEngine('gemini', apiError, {}).failure).toEqual({
      check: 'agent',
      message: 'the model API failed: 400 too long',
    });
  });

  it('Copilot CLI: its flags and usage file, its session, a model call per message, its tokens less the prior ones', () => {
    const cmd = engineCommand('copilot --allow-all', 'copilot', { resume: { id: 's-1', engine: 'copilot' } });
    expect(cmd).toContain(
      'copilot --allow-all --output-format json --resume s-1 --usage-output-file "$interlock_usage/usage.json"',
    );
    expect(cmd.split('\n').at(-1)).toBe('exit $interlock_status');
    // Under bash -e (as every script runs), a failing Copilot still has its usage printed, and its code kept.
    // A stand-in that writes the file it is given and fails.
    const fake = engineCommand(`f() { printf '{}' > "$4"; return 7; }; f`, 'copilot', {});
    const ran = spawnSync('bash', ['-eo', 'pipefail', '-c', fake], { encoding: 'utf8' });
    expect([ran.status, ran.stdout]).toEqual([7, '{"type":"interlock.usage_file","usage":{}}\n']);
    // Recorded from Copilot CLI 1.0.102 against the scripted server (test/agents/engines.test.ts runs it).
    const msg = (id: string, content: string) =>
      line({ type: 'assistant.message', data: { messageId: id, content, toolRequests: [] } });
    const out =
      msg('m1', 'Copying.') +
      line({ type: 'tool.execution_start', data: { toolName: 'bash', arguments: { command: 'cp a b' } } }) +
      msg('m2', 'Copied.') +
      line({ type: 'result', sessionId: '8eaa6467-ab75-4115-b822-abf594aab431', exitCode: 0, usage: {} }) +
      line({
        type: 'interlock.usage_file',
        usage: {
          modelMetrics: { m: { usage: { inputTokens: 1000, outputTokens: 62, cacheReadTokens: 200 } } },
        },
      });
    const prior = { input_tokens: 500, output_tokens: 31 };
    expect(readEngine('copilot', out, { resume: { id: 'x', engine: 'copilot', prior } })).toEqual({
      usage: { usage: { input_tokens: 500, output_tokens: 31, turns: 2 }, warnings: [] },
      session_id: '8eaa6467-ab75-4115-b822-abf594aab431',
      final_message: 'Copied.',
    });
    const m = new EngineMeter('copilot');
    m.push(out);
    expect(m.usage()).toEqual({ turns: 2, input_tokens: 1000, output_tokens: 62 });
    expect(m.steps.map((s) => `${s.tool}: ${s.arg}`)).toEqual([
      'Said: Copying.',
      'bash: cp a b',
      'Said: Copied.',
    ]);
    const failed =
      line({
        type: 'model.call_failure',
        data: { statusCode: 400, errorMessage: '{"type":"invalid_request_error","message":"no"}' },
      }) +
      line({ type: 'session.error', data: { message: 'The provider rejected the prompt.' } }) +
      line({ type: 'result', sessionId: 's', exitCode: 1 });
    expect(readEngine('copilot', failed, {}).failure).toEqual({
      check: 'agent',
      message: 'the model API answered 400: no',
    });
  });

  it("stops over the node's budget, or over what is left of the run's, whichever comes first", () => {
    const run = { budget: { turns: 10 }, spent: { turns: 8, tokens: 0, cost_usd: 0, wall_minutes: 0 } };
    const u = (turns: number) => ({ turns, input_tokens: 0, output_tokens: 0 });
    expect(overLiveLimit({ node: { turns: 3 }, run }, u(2))).toBeUndefined();
    expect(overLiveLimit({ node: { turns: 3 }, run }, u(3))).toBe(
      "the agent was stopped after 3 turns: over what was left of the run's budget, 2 turns of 10 turns (budget.turns)",
    );
    expect(overLiveLimit({ node: { turns: 3 } }, u(4))).toBe(
      "the agent was stopped after 4 turns: over the node's budget of 3 turns (budget.turns)",
    );
  });

  it('reads a Codex API error from the error body it wraps, and its thread id as the session', () => {
    const out =
      line({ type: 'thread.started', thread_id: '01a23100-d567-76f0-b380-2b13adc5fd64' }) +
      line({ type: 'turn.failed', error: { message: '{"error":{"message":"rate limited","type":"x"}}' } });
    expect(readEngine('codex', out, {})).toMatchObject({
      session_id: '01a23100-d567-76f0-b380-2b13adc5fd64',
      failure: { check: 'agent', message: 'the model API failed: rate limited' },
    });
  });

  it('keeps no session id that is not one (a path, a newline)', () => {
    const out = line({
      type: 'result',
      subtype: 'success',
      is_error: false,
      session_id: '../x\n',
      result: 'ok',
    });
    expect(readEngine('claude-code', out, {}).session_id).toBeUndefined();
  });
});
