// Engines through the built CLI with the real agent CLIs against the scripted model server: interlock adds the
// flags each engine needs, reads usage, session id, final message and end state from the engine's own output,
// fails an attempt on an API error as such (its evidence unchecked), stops the agent at its turn budget, journals
// it overdue past soft_turns, and tells a retry why. One table, four engines: each row is what differs (the CLI,
// its tool's name, its error's words, how its turns are bounded), and every test runs for every row.
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

interface Engine {
  engine: 'claude-code' | 'codex' | 'gemini' | 'copilot';
  cli: 'claude' | 'codex' | 'gemini' | 'copilot';
  agent: () => string;
  env: () => Record<string, string>;
  /** The CLI's shell tool called with a command, as the scripted model calls it. */
  tool: (c: string) => ScriptedTurn['tools'];
  /** The answer after the tool call, its usage, and what the attempt's usage must then read. */
  recorded: { text: string; cached: number; input: number; output: number };
  /** What else the recorded run shows (the requests' shape). */
  requests: (calls: ModelServer['calls']) => void;
  apiError: { message: string; failure: string | RegExp };
  /** The budget failure's words: Claude Code's own --max-turns, or interlock's live turn count. */
  budget: string | RegExp;
  /** Whether the stopped attempt's usage counts the 4 turns (the CLIs interlock stops itself, and reads). */
  budgetTurns: boolean;
}

const ENGINES: Engine[] = [
  {
    engine: 'claude-code',
    cli: 'claude',
    agent: () => command([claudeBin!, '-p', '--allowedTools', 'Bash']),
    env: () => claudeEnv(server!.url, agentHome('claude')),
    tool: (c) => [{ name: 'Bash', input: { command: c, description: 'step' } }],
    // Anthropic's input_tokens exclude the cached ones: 100 + 300 + 50.
    recorded: { text: 'Copied a.txt to b.txt.', cached: 50, input: 100 + 350, output: 20 + 11 },
    // interlock asked for the streamed result: the requests were streamed.
    requests: (calls) => expect(calls.every((c) => c.body?.stream === true)).toBe(true),
    apiError: {
      message: 'prompt is too long: 300000 tokens > 200000 maximum',
      failure: /^the model API answered 400: Prompt is too long/,
    },
    budget: /^the agent was stopped at its turn budget \(--max-turns 3\) after \d+ turns/,
    budgetTurns: false,
  },
  {
    engine: 'codex',
    cli: 'codex',
    agent: () =>
      command([
        codexBin!,
        ...codexConfigArgs(server!.url),
        'exec',
        '-m',
        CODEX_MODEL,
        '--skip-git-repo-check',
        '--sandbox',
        'workspace-write',
      ]),
    env: () => codexEnv(agentHome('codex')),
    tool: (c) => [{ name: 'exec_command', input: { cmd: c } }],
    // 100 + (300 + 100) input tokens: OpenAI's input_tokens already hold the cached ones.
    recorded: { text: 'Copied.', cached: 100, input: 500, output: 31 },
    requests: (calls) => expect(calls.map((c) => c.path)).toEqual(['/v1/responses', '/v1/responses']),
    apiError: { message: 'prompt is too long', failure: 'the model API failed: prompt is too long' },
    budget: "the agent was stopped after 4 turns: over the node's budget of 3 turns (budget.turns)",
    budgetTurns: true,
  },
  {
    engine: 'gemini',
    cli: 'gemini',
    agent: () => command([geminiBin!, '--approval-mode', 'yolo']),
    env: () => geminiEnv(server!.url, agentHome('gemini')),
    tool: (c) => [{ name: 'run_shell_command', input: { command: c } }],
    // promptTokenCount holds the cached tokens: 100 + (300 + 100); one tool call and the answer.
    recorded: { text: 'Copied a.txt ', cached: 100, input: 500, output: 31 },
    requests: (calls) =>
      expect(calls.map((c) => c.path)).toEqual([
        '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
        '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
      ]),
    apiError: { message: 'prompt is too long', failure: 'the model API failed: 400 prompt is too long' },
    budget: "the agent was stopped after 4 turns: over the node's budget of 3 turns (budget.turns)",
    budgetTurns: true,
  },
  {
    engine: 'copilot',
    cli: 'copilot',
    agent: () => command([copilotBin!, '--allow-all']),
    env: () => copilotEnv(server!.url, agentHome('copilot')),
    tool: (c) => [{ name: 'bash', input: { command: c, description: 'step' } }],
    // From the usage file its command prints; Copilot counts cached input in its inputTokens: 100 + (300 + 100).
    recorded: { text: 'Copied.', cached: 100, input: 500, output: 31 },
    requests: (calls) => expect(calls.map((c) => c.path)).toEqual(['/v1/messages', '/v1/messages']),
    apiError: {
      message: 'scripted bad request',
      failure: 'the model API answered 400: scripted bad request',
    },
    budget: "the agent was stopped after 4 turns: over the node's budget of 3 turns (budget.turns)",
    budgetTurns: false,
  },
];

for (const e of ENGINES)
  describe.skipIf(missing(e.cli))(`engine: ${e.engine}`, () => {
    it('records usage, the session id and the final message from its own output', async (ctx) => {
      const sb = await world(ctx, [
        { text: 'Copying.', tools: e.tool('cp a.txt b.txt') },
        {
          text: e.recorded.text,
          usage: { input_tokens: 300, cached_input_tokens: e.recorded.cached, output_tokens: 11 },
        },
      ]);
      sb.write('graph.yml', graph(e.engine, e.agent()));
      const r = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'c'], e.env());
      expect(r.code, r.stderr).toBe(0);
      const rec = eventsOf(sb.journal('c'), 'NodeRecorded', 'implement')[0]!;
      expect(rec).toMatchObject({ engine: e.engine, final_message: e.recorded.text });
      expect(rec.session_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(rec.usage).toMatchObject({
        turns: 2,
        input_tokens: e.recorded.input,
        output_tokens: e.recorded.output,
      });
      e.requests(server!.calls);
    }, 90_000);

    it('fails the attempt with the API error, not as a check failure', async (ctx) => {
      const sb = await world(ctx, [{ error: { status: 400, message: e.apiError.message } }]);
      sb.write('graph.yml', graph(e.engine, e.agent()));
      await sb.cli(['run', 'graph.yml', '--run-id', 'e'], e.env());
      const failed = eventsOf(sb.journal('e'), 'NodeFailed', 'implement')[0]!;
      const message =
        typeof e.apiError.failure === 'string'
          ? e.apiError.failure
          : expect.stringMatching(e.apiError.failure);
      expect(failed.failures).toEqual([{ check: 'agent', message }]);
      expect(failed.evidence).toEqual([]);
    }, 90_000);

    it('with budget.turns 3, a 10-turn script calls the model at most 4 times and fails with a budget failure', async (ctx) => {
      const sb = await world(
        ctx,
        tenTurns((i) => e.tool(`echo ${i} >> turns.txt`)),
      );
      sb.write('graph.yml', graph(e.engine, e.agent(), '    budget: { turns: 3 }\n'));
      await sb.cli(['run', 'graph.yml', '--run-id', 't'], e.env());
      expect(server!.calls.length).toBeLessThanOrEqual(4);
      const failed = eventsOf(sb.journal('t'), 'NodeFailed', 'implement')[0]!;
      const message = typeof e.budget === 'string' ? e.budget : expect.stringMatching(e.budget);
      expect(failed.failures).toEqual([{ check: 'budget', message }]);
      if (e.budgetTurns) expect(failed.usage.turns).toBe(4);
    }, 90_000);

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
      expect(r.stderr).toContain('"implement" attempt 1 is overdue: 2 turns, past its soft_turns of 1.');
    }, 90_000);

    // A retry is told why: the second attempt's request carries the first's failing check.
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
      const said = JSON.stringify(body.contents ?? body.messages ?? body.input);
      expect(said).toContain('Attempt 1 failed.');
      expect(said).toContain('NO-B-TXT-YET');
    }, 90_000);
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
