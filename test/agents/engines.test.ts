// Engines through the built CLI with the real agent CLIs against the scripted model server: interlock adds the
// flags each engine needs, reads usage, session id, final message and end state from the engine's own output,
// fails an attempt on an API error as such (its evidence unchecked), and stops the agent at its turn budget.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { cleanupSandboxes, eventsOf, requireBundle, type Sandbox, sandbox } from '../crash/harness.js';
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
} from '../support/agent-clis.js';
import { type ModelServer, type ScriptedTurn, startModelServer } from '../support/model-server.js';

let server: ModelServer | undefined;
beforeAll(requireBundle);
afterEach(async (ctx) => {
  await cleanupSandboxes(ctx);
  await server?.close();
  server = undefined;
});

const command = (words: string[]) => words.map(shellWord).join(' ');

function graph(engine: string, agent: string, extra = ''): string {
  return `interlock: 1
name: engines
defaults:
  engine: ${engine}
  agent: ${JSON.stringify(agent)}
nodes:
  - id: implement
    prompt: Copy a.txt to b.txt.
${extra}    validates:
      - file: b.txt
`;
}

async function world(ctx: { task: { id: string } }, script: ScriptedTurn[]): Promise<Sandbox> {
  server = await startModelServer({ script });
  const sb = sandbox(ctx, 'interlock-engine-');
  sb.write('a.txt', 'hello\n');
  return sb;
}

const tenTurns = (tool: (i: number) => ScriptedTurn['tools']) =>
  Array.from({ length: 10 }, (_, i) => ({ text: `turn ${i}`, tools: tool(i) }));

describe.skipIf(missing('claude'))('engine: claude-code', () => {
  const agent = () => command([claudeBin!, '-p', '--allowedTools', 'Bash']);
  const env = () => claudeEnv(server!.url, agentHome('claude'));

  it('records usage, the session id and the final message from its stream-json result', async (ctx) => {
    const sb = await world(ctx, [
      {
        text: 'Copying.',
        tools: [{ name: 'Bash', input: { command: 'cp a.txt b.txt', description: 'copy' } }],
      },
      {
        text: 'Copied a.txt to b.txt.',
        usage: { input_tokens: 300, cached_input_tokens: 50, output_tokens: 11 },
      },
    ]);
    sb.write('graph.yml', graph('claude-code', agent()));
    const r = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'c'], env());
    expect(r.code, r.stderr).toBe(0);
    const rec = eventsOf(sb.journal('c'), 'NodeRecorded', 'implement')[0]!;
    expect(rec).toMatchObject({ engine: 'claude-code', final_message: 'Copied a.txt to b.txt.' });
    expect(rec.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(rec.usage).toMatchObject({ turns: 2, input_tokens: 100 + 350, output_tokens: 20 + 11 });
    // interlock asked for the streamed result: the requests were streamed.
    expect(server!.calls.every((c) => c.body?.stream === true)).toBe(true);
  });

  it('fails the attempt with the API error, not as a check failure', async (ctx) => {
    const sb = await world(ctx, [
      { error: { status: 400, message: 'prompt is too long: 300000 tokens > 200000 maximum' } },
    ]);
    sb.write('graph.yml', graph('claude-code', agent()));
    await sb.cli(['run', 'graph.yml', '--run-id', 'e'], env());
    const failed = eventsOf(sb.journal('e'), 'NodeFailed', 'implement')[0]!;
    expect(failed.failures).toEqual([
      { check: 'agent', message: expect.stringMatching(/^the model API answered 400: Prompt is too long/) },
    ]);
    expect(failed.evidence).toEqual([]);
  });

  it('with budget.turns 3, a 10-turn script calls the model at most 4 times and fails with a budget failure', async (ctx) => {
    const sb = await world(
      ctx,
      tenTurns((i) => [{ name: 'Bash', input: { command: `echo ${i} >> turns.txt`, description: 'count' } }]),
    );
    sb.write('graph.yml', graph('claude-code', agent(), '    budget: { turns: 3 }\n'));
    await sb.cli(['run', 'graph.yml', '--run-id', 't'], env());
    expect(server!.calls.length).toBeLessThanOrEqual(4);
    const failed = eventsOf(sb.journal('t'), 'NodeFailed', 'implement')[0]!;
    expect(failed.failures).toEqual([
      {
        check: 'budget',
        message: expect.stringMatching(
          /^the agent was stopped at its turn budget \(--max-turns 3\) after \d+ turns/,
        ),
      },
    ]);
  });
});

describe.skipIf(missing('claude'))('soft_turns, with Claude Code', () => {
  it('journals the attempt overdue past soft_turns, read live, and lets it finish', async (ctx) => {
    const bash = (c: string) => [{ name: 'Bash', input: { command: c, description: 'step' } }];
    const sb = await world(ctx, [
      { text: 'One.', tools: bash('true') },
      { text: 'Two.', tools: bash('cp a.txt b.txt') },
      { text: 'Done.' },
    ]);
    sb.write(
      'graph.yml',
      graph('claude-code', command([claudeBin!, '-p', '--allowedTools', 'Bash']), '    soft_turns: 1\n'),
    );
    const r = await sb.cli(
      ['run', 'graph.yml', '--all', '--run-id', 'o'],
      claudeEnv(server!.url, agentHome('claude')),
    );
    expect(r.code, r.stderr).toBe(0);
    const j = sb.journal('o');
    expect(eventsOf(j, 'NodeOverdue', 'implement')).toEqual([
      expect.objectContaining({ bound: 'soft_turns', limit: 1, observed: 2 }),
    ]);
    expect(eventsOf(j, 'NodeRecorded', 'implement')).toHaveLength(1);
    expect(r.stderr).toContain('"implement" attempt 1 is overdue: 2 turns, past its soft_turns of 1.');
  });
});

describe.skipIf(missing('claude'))('the task envelope, with Claude Code', () => {
  const agent = () => command([claudeBin!, '-p', '--allowedTools', 'Bash']);

  it("tells the agent its checks and outputs, an earlier node's final message, and on retry the failing assertion", async (ctx) => {
    // explore answers once; implement changes nothing, twice.
    const sb = await world(ctx, [
      { text: 'sum adds one too many.' },
      { text: 'Done.' },
      { text: 'Done again.' },
    ]);
    sb.write('sum.js', 'module.exports = (a, b) => a + b + 1;\n');
    sb.write(
      'sum.test.js',
      "const assert = require('node:assert');\nfor (let i = 0; i < 30; i++) console.log('ok ' + i);\nassert.strictEqual(require('./sum.js')(2, 3), 5);\n",
    );
    sb.write(
      'graph.yml',
      `interlock: 1
name: envelope
defaults:
  engine: claude-code
  agent: ${JSON.stringify(agent())}
nodes:
  - id: explore
    prompt: Find out why sum.test.js fails.
  - id: implement
    depends_on: [explore]
    prompt: Make sum.test.js pass.
    outputs: [summary]
    validates:
      - command: node sum.test.js
`,
    );
    await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'v'], claudeEnv(server!.url, agentHome('claude')));
    const said = (i: number) => JSON.stringify(server!.calls[i]!.body!.messages);
    // implement, attempt 1: its checks, its outputs, what explore concluded.
    expect(said(1)).toContain('When you finish, interlock will check:\\n- `node sum.test.js` exits 0');
    expect(said(1)).toContain('file named in $INTERLOCK_OUTPUT:\\n- summary');
    expect(said(1)).toContain('- explore (completed)\\n  its final message:\\n    sum adds one too many.');
    // implement, attempt 2: the failing assertion from the check's output.
    expect(said(2)).toContain('Attempt 1 failed.');
    expect(said(2)).toContain('6 !== 5');
    expect(said(2)).toContain('AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:');
  });
});

describe.skipIf(missing('codex'))('engine: codex', () => {
  const agent = () =>
    command([
      codexBin!,
      ...codexConfigArgs(server!.url),
      'exec',
      '-m',
      CODEX_MODEL,
      '--skip-git-repo-check',
      '--sandbox',
      'workspace-write',
    ]);
  const env = () => codexEnv(agentHome('codex'));

  it('records usage (cached input counted once), the thread id and the final message from its --json events', async (ctx) => {
    const sb = await world(ctx, [
      { text: 'Copying.', tools: [{ name: 'exec_command', input: { cmd: 'cp a.txt b.txt' } }] },
      { text: 'Copied.', usage: { input_tokens: 300, cached_input_tokens: 100, output_tokens: 11 } },
    ]);
    sb.write('graph.yml', graph('codex', agent()));
    const r = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'x'], env());
    expect(r.code, r.stderr).toBe(0);
    const rec = eventsOf(sb.journal('x'), 'NodeRecorded', 'implement')[0]!;
    expect(rec).toMatchObject({ engine: 'codex', final_message: 'Copied.' });
    expect(rec.session_id).toMatch(/^[0-9a-f-]{36}$/);
    // 100 + (300 + 100) input tokens: OpenAI's input_tokens already hold the cached ones.
    expect(rec.usage).toMatchObject({ input_tokens: 500, output_tokens: 31, turns: 2 });
  });

  it('fails the attempt with the API error', async (ctx) => {
    const sb = await world(ctx, [{ error: { status: 400, message: 'prompt is too long' } }]);
    sb.write('graph.yml', graph('codex', agent()));
    await sb.cli(['run', 'graph.yml', '--run-id', 'e'], env());
    const failed = eventsOf(sb.journal('e'), 'NodeFailed', 'implement')[0]!;
    expect(failed.failures).toEqual([
      { check: 'agent', message: 'the model API failed: prompt is too long' },
    ]);
  });

  it('with budget.turns 3, a 10-turn script calls the model at most 4 times: interlock stops it', async (ctx) => {
    const sb = await world(
      ctx,
      tenTurns((i) => [{ name: 'exec_command', input: { cmd: `echo ${i} >> turns.txt` } }]),
    );
    sb.write('graph.yml', graph('codex', agent(), '    budget: { turns: 3 }\n'));
    await sb.cli(['run', 'graph.yml', '--run-id', 't'], env());
    expect(server!.calls.length).toBeLessThanOrEqual(4);
    const failed = eventsOf(sb.journal('t'), 'NodeFailed', 'implement')[0]!;
    expect(failed.failures).toEqual([
      {
        check: 'budget',
        message: "the agent was stopped after 4 turns: over the node's budget of 3 turns (budget.turns)",
      },
    ]);
    expect(failed.usage.turns).toBe(4);
  });
});

describe.skipIf(missing('gemini'))('engine: gemini', () => {
  const agent = () => command([geminiBin!, '--approval-mode', 'yolo']);
  const env = () => geminiEnv(server!.url, agentHome('gemini'));
  const shell = (c: string) => [{ name: 'run_shell_command', input: { command: c } }];

  it('records usage (cached input counted once), the session id and the final message from its stream-json events', async (ctx) => {
    const sb = await world(ctx, [
      { text: 'Copying.', tools: shell('cp a.txt b.txt') },
      { text: 'Copied a.txt ', usage: { input_tokens: 300, cached_input_tokens: 100, output_tokens: 11 } },
    ]);
    sb.write('graph.yml', graph('gemini', agent()));
    const r = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'g'], env());
    expect(r.code, r.stderr).toBe(0);
    const rec = eventsOf(sb.journal('g'), 'NodeRecorded', 'implement')[0]!;
    expect(rec).toMatchObject({ engine: 'gemini', final_message: 'Copied a.txt ' });
    expect(rec.session_id).toMatch(/^[0-9a-f-]{36}$/);
    // promptTokenCount holds the cached tokens: 100 + (300 + 100); one tool call and the answer.
    expect(rec.usage).toMatchObject({ input_tokens: 500, output_tokens: 31, turns: 2 });
    expect(server!.calls.map((c) => c.path)).toEqual([
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
    ]);
  });

  it('fails the attempt with the API error', async (ctx) => {
    const sb = await world(ctx, [{ error: { status: 400, message: 'prompt is too long' } }]);
    sb.write('graph.yml', graph('gemini', agent()));
    await sb.cli(['run', 'graph.yml', '--run-id', 'e'], env());
    const failed = eventsOf(sb.journal('e'), 'NodeFailed', 'implement')[0]!;
    expect(failed.failures).toEqual([
      { check: 'agent', message: 'the model API failed: 400 prompt is too long' },
    ]);
    expect(failed.evidence).toEqual([]);
  });

  it('with budget.turns 3, a 10-turn script calls the model at most 4 times: interlock stops it', async (ctx) => {
    const sb = await world(
      ctx,
      tenTurns((i) => shell(`echo ${i} >> turns.txt`)),
    );
    sb.write('graph.yml', graph('gemini', agent(), '    budget: { turns: 3 }\n'));
    await sb.cli(['run', 'graph.yml', '--run-id', 't'], env());
    expect(server!.calls.length).toBeLessThanOrEqual(4);
    const failed = eventsOf(sb.journal('t'), 'NodeFailed', 'implement')[0]!;
    expect(failed.failures).toEqual([
      {
        check: 'budget',
        message: "the agent was stopped after 4 turns: over the node's budget of 3 turns (budget.turns)",
      },
    ]);
    expect(failed.usage.turns).toBe(4);
  });
});

describe.skipIf(missing('copilot'))('engine: copilot', () => {
  const agent = () => command([copilotBin!, '--allow-all']);
  const env = () => copilotEnv(server!.url, agentHome('copilot'));
  const bash = (c: string) => [{ name: 'bash', input: { command: c, description: 'step' } }];

  it('records usage from the usage file its command prints, the session id and the final message', async (ctx) => {
    const sb = await world(ctx, [
      { text: 'Copying.', tools: bash('cp a.txt b.txt') },
      { text: 'Copied.', usage: { input_tokens: 300, cached_input_tokens: 100, output_tokens: 11 } },
    ]);
    sb.write('graph.yml', graph('copilot', agent()));
    const r = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'p'], env());
    expect(r.code, r.stderr).toBe(0);
    const rec = eventsOf(sb.journal('p'), 'NodeRecorded', 'implement')[0]!;
    expect(rec).toMatchObject({ engine: 'copilot', final_message: 'Copied.' });
    expect(rec.session_id).toMatch(/^[0-9a-f-]{36}$/);
    // Copilot counts cached input in its inputTokens: 100 + (300 + 100).
    expect(rec.usage).toMatchObject({ input_tokens: 500, output_tokens: 31, turns: 2 });
    expect(server!.calls.map((c) => c.path)).toEqual(['/v1/messages', '/v1/messages']);
  });

  it('fails the attempt with the API error', async (ctx) => {
    const sb = await world(ctx, [{ error: { status: 400, message: 'scripted bad request' } }]);
    sb.write('graph.yml', graph('copilot', agent()));
    await sb.cli(['run', 'graph.yml', '--run-id', 'e'], env());
    const failed = eventsOf(sb.journal('e'), 'NodeFailed', 'implement')[0]!;
    expect(failed.failures).toEqual([
      { check: 'agent', message: 'the model API answered 400: scripted bad request' },
    ]);
    expect(failed.evidence).toEqual([]);
  });

  it('with budget.turns 3, a 10-turn script calls the model at most 4 times: interlock stops it', async (ctx) => {
    const sb = await world(
      ctx,
      tenTurns((i) => bash(`echo ${i} >> turns.txt`)),
    );
    sb.write('graph.yml', graph('copilot', agent(), '    budget: { turns: 3 }\n'));
    await sb.cli(['run', 'graph.yml', '--run-id', 't'], env());
    expect(server!.calls.length).toBeLessThanOrEqual(4);
    const failed = eventsOf(sb.journal('t'), 'NodeFailed', 'implement')[0]!;
    expect(failed.failures).toEqual([
      {
        check: 'budget',
        message: "the agent was stopped after 4 turns: over the node's budget of 3 turns (budget.turns)",
      },
    ]);
  });
});

// soft_turns, read live from each CLI's own events: journaled overdue past it, and the attempt goes on.
const SOFT = [
  {
    engine: 'gemini',
    cli: 'gemini' as const,
    agent: () => command([geminiBin!, '--approval-mode', 'yolo']),
    env: () => geminiEnv(server!.url, agentHome('gemini')),
    tool: (c: string) => [{ name: 'run_shell_command', input: { command: c } }],
  },
  {
    engine: 'copilot',
    cli: 'copilot' as const,
    agent: () => command([copilotBin!, '--allow-all']),
    env: () => copilotEnv(server!.url, agentHome('copilot')),
    tool: (c: string) => [{ name: 'bash', input: { command: c, description: 'step' } }],
  },
];
for (const e of SOFT)
  describe.skipIf(missing(e.cli))(`soft_turns, with ${e.engine}`, () => {
    it('journals the attempt overdue past soft_turns, read live, and lets it finish', async (ctx) => {
      const sb = await world(ctx, [
        { text: 'One.', tools: e.tool('true') },
        { text: 'Two.', tools: e.tool('cp a.txt b.txt') },
        { text: 'Done.' },
      ]);
      sb.write('graph.yml', graph(e.engine, e.agent(), '    soft_turns: 1\n'));
      const r = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'o'], e.env());
      expect(r.code, r.stderr).toBe(0);
      const j = sb.journal('o');
      expect(eventsOf(j, 'NodeOverdue', 'implement')).toEqual([
        expect.objectContaining({ bound: 'soft_turns', limit: 1, observed: 2 }),
      ]);
      expect(eventsOf(j, 'NodeRecorded', 'implement')).toHaveLength(1);
    }, 60_000);
  });

// A retry is told why: the second attempt's request carries the first's failing check, for each engine.
for (const e of SOFT)
  describe.skipIf(missing(e.cli))(`the task envelope on retry, with ${e.engine}`, () => {
    it("the second attempt's request says the first failed and what its check printed", async (ctx) => {
      const sb = await world(ctx, [
        { text: 'Done.' },
        { text: 'Done again.', tools: e.tool('cp a.txt b.txt') },
        { text: 'Copied.' },
      ]);
      sb.write(
        'graph.yml',
        graph(e.engine, e.agent()).replace(
          '      - file: b.txt\n',
          '      - file: b.txt\n      - command: test -f b.txt || { echo "NO-B-TXT-YET"; exit 1; }\n',
        ),
      );
      const r = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'r'], e.env());
      expect(r.code, r.stderr).toBe(0);
      const j = sb.journal('r');
      expect(eventsOf(j, 'NodeFailed', 'implement')).toHaveLength(1);
      expect(eventsOf(j, 'NodeRecorded', 'implement')[0]?.attempt).toBe(2);
      const body = server!.calls[1]!.body!;
      const said = JSON.stringify(body.contents ?? body.messages);
      expect(said).toContain('Attempt 1 failed.');
      expect(said).toContain('NO-B-TXT-YET');
    }, 90_000);
  });
