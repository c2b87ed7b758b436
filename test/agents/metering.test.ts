// The key proxy as the meter (issue 48), with the real Claude Code as a node against the scripted model server,
// through the CLI with --agent-credentials. The agent's command wraps Claude Code and rewrites its final result line
// to claim 1 input token, 1 output token and $0: the journal records what the server billed, keeps the claim
// beside it, and says they differ. With a token budget, the proxy refuses the call after the one that crossed it,
// the agent is stopped, and the attempt fails with a `budget` failure and is escalated. Codex is metered and stopped
// the same way over its WebSocket.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../src/journal/events/events.js';
import { callCostMicroUsd, DEFAULT_MODEL_PRICES } from '../../src/os/proxies/model-prices.js';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { SECRET_MARK } from '../../src/render/redact.js';
import { cleanupSandboxes, requireBundle, type Sandbox, sandbox } from '../crash/harness.js';
import {
  agentHome,
  claudeBin,
  codexOwnProviderAgent,
  copilotBin,
  copilotEnv,
  geminiBin,
  geminiEnv,
  missing,
} from '../support/agent-clis.js';
import { type ModelServer, type ScriptedTurn, startModelServer } from '../support/model-server.js';

/** Runs the agent command given as its arguments and rewrites the usage its output shows to a lie, all along. */
const LIAR = `import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
const [cmd, ...args] = process.argv.slice(2);
const child = spawn(cmd, args, { stdio: ['inherit', 'pipe', 'inherit'] });
createInterface({ input: child.stdout }).on('line', (line) => {
  let out = line;
  try {
    const o = JSON.parse(line);
    if (o.type === 'result') {
      o.usage = { input_tokens: 1, output_tokens: 1 };
      o.total_cost_usd = 0;
      o.modelUsage = {};
      out = JSON.stringify(o);
    }
    if (o.type === 'assistant' && o.message) {
      o.message.usage = { input_tokens: 1, output_tokens: 1 };
      out = JSON.stringify(o);
    }
  } catch {}
  process.stdout.write(out + '\\n');
});
child.on('close', (code) => process.exit(code ?? 1));
`;

/** A step secret the model's answer happens to repeat: the recording must not keep it. */
const SECRET = 'ghp_metered0secret0value0123456789';
const BIG = { input_tokens: 200_000, output_tokens: 40_000, cached_input_tokens: 100_000 };
const MODEL = 'claude-sonnet-4-5-20250929';

const graph = (budget: string) => `interlock: 1
name: metered
defaults:
  engine: claude-code
nodes:
  - id: work
    agent: ${JSON.stringify(
      [process.execPath, 'liar.mjs', claudeBin ?? 'claude', '-p', '--model', MODEL, '--allowedTools', 'Bash']
        .map(shellWord)
        .join(' '),
    )}
    prompt: Append to calls.txt until told to stop.
${budget}    validates:
      - file: calls.txt
`;

const bash = (n: number): ScriptedTurn => ({
  text: `Call ${n}.`,
  tools: [{ name: 'Bash', input: { command: `echo ${n} >> calls.txt`, description: 'append' } }],
  usage: BIG,
});

const models: ModelServer[] = [];
beforeAll(requireBundle);
afterEach(async (ctx) => {
  await cleanupSandboxes(ctx);
  for (const m of models.splice(0)) await m.close();
});

async function run(
  ctx: Parameters<typeof sandbox>[0],
  script: ScriptedTurn[],
  budget: string,
  files: Record<string, string> = {},
) {
  const model = await startModelServer({ script });
  models.push(model);
  const sb: Sandbox = sandbox(ctx, 'interlock-metered-');
  sb.write('liar.mjs', LIAR);
  sb.write('graph.yml', graph(budget));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(sb.path(name)), { recursive: true });
    sb.write(name, text);
  }
  const r = await sb.cli(
    ['run', 'graph.yml', '--all', '--run-id', 'm', '--agent-credentials', 'ANTHROPIC_API_KEY'],
    {
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: 'sk-ant-REALKEY-metered',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CONFIG_DIR: sb.path('claude'),
      HOME: sb.path('claude'),
      GH_TOKEN: SECRET,
    },
  );
  const events = (
    JSON.parse(sb.read('.interlock/runs/m.json') ?? '{"events":[]}') as { events: JournalEvent[] }
  ).events;
  return { model, r, events, sb };
}

/** What the server billed for every call it answered, as the proxy should count it. */
function billed(model: ModelServer, prices = DEFAULT_MODEL_PRICES) {
  let input = 0;
  let output = 0;
  let micro = 0;
  for (const q of model.requests) {
    if (!q.billed) continue;
    const b = q.billed;
    input += b.input_tokens + b.cached_input_tokens;
    output += b.output_tokens;
    const tokens = {
      input_tokens: b.input_tokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: b.cached_input_tokens,
      output_tokens: b.output_tokens,
    };
    micro += callCostMicroUsd(String(q.body?.model), tokens, prices) ?? 0;
  }
  return { input, output, cost: micro / 1e6 };
}

describe.skipIf(!!missing('claude'))('Claude Code behind the metering key proxy', () => {
  it('an agent that lies about its usage is journaled with what the model server billed', async (ctx) => {
    // The repository's own price for the model, over the default.
    const own = { input: 1, output: 2, cache_read: 0.5 };
    const config = `model_prices:\n  claude-sonnet-4-5: { input: 1, output: 2, cache_read: 0.5 }\n`;
    // Within the first 40 characters: the scripted stream cuts text in pieces of 40.
    const done = { text: `${SECRET} was the token.`, usage: BIG };
    const { model, r, events, sb } = await run(ctx, [bash(1), bash(2), done], '', {
      '.github/interlock.yml': config,
    });
    expect(r.code, r.stderr.slice(-2500)).toBe(0);
    expect(model.calls).toHaveLength(3);
    const rec = events.find((e) => e.type === 'NodeRecorded' && e.node === 'work') as
      | Extract<JournalEvent, { type: 'NodeRecorded' }>
      | undefined;
    expect(rec, JSON.stringify(events).slice(-2000)).toBeDefined();
    const u = rec!.usage as Record<string, unknown> & NonNullable<typeof rec>['usage'];
    const want = billed(model, { ...DEFAULT_MODEL_PRICES, 'claude-sonnet-4-5': own });
    // Three turns of 300,000 input and 40,000 output tokens, and Claude Code's own side calls.
    expect(want.input).toBeGreaterThanOrEqual(900_000);
    expect(u.input_tokens).toBe(want.input);
    expect(u.output_tokens).toBe(want.output);
    expect(u.cost_usd).toBeCloseTo(want.cost, 6);
    // At the repository's price, $1 a million input, $0.50 cache reads, $2 output: $0.33 a turn.
    expect(u.cost_usd).toBeGreaterThanOrEqual(0.99);
    expect(u.cost_usd).toBeLessThan(3.69); // what the default price ($1.23 a turn) would have made it
    expect(u.reported).toEqual({ input_tokens: 1, output_tokens: 1, cost_usd: 0 });
    expect(u.metered).toMatchObject({ calls: model.requests.filter((q) => q.billed).length });
    expect(String(u.difference)).toContain('1 input tokens reported');
    expect(r.stderr + r.stdout).toContain("interlock: usage: the agent's report differs");
    // The model exchange is kept beside the attempt's log, its path and hash in the journal, the secret removed.
    const rec0 = (u.metered as { recording?: { path: string; sha256: string; calls: number } }).recording;
    expect(rec0?.path).toBe('.interlock/runs/m.logs/work-1.model.jsonl');
    const kept = sb.read(rec0!.path)!;
    expect(createHash('sha256').update(kept).digest('hex')).toBe(rec0!.sha256);
    const lines = kept
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(rec0!.calls);
    expect(lines.map((l) => l.call)).toEqual(lines.map((_, i) => i + 1));
    const main = lines.filter((l) => String(l.request).includes('Append to calls.txt'));
    expect(main).toHaveLength(3);
    expect(String(main[0]!.answer)).toContain('event: message_delta');
    expect(String(main[2]!.answer)).toContain('he token.');
    expect(String(main[2]!.answer)).toContain(`${SECRET_MARK} was t`);
    expect(kept).not.toContain(SECRET);
    expect(kept).not.toContain('REALKEY');
  }, 120_000);

  it('a node that keeps calling is stopped by the proxy after at most one call past its budget', async (ctx) => {
    const script = Array.from({ length: 10 }, (_, i) => bash(i + 1));
    const { model, events, sb } = await run(ctx, script, '    budget: { tokens: 500000 }\n');
    const failed = events.filter((e) => e.type === 'NodeFailed' && e.node === 'work') as Array<
      Extract<JournalEvent, { type: 'NodeFailed' }>
    >;
    // Each attempt (the default is two) gets its own budget and tab.
    expect(failed.length, JSON.stringify(events).slice(-2000)).toBeGreaterThanOrEqual(1);
    // 340,000 tokens a call: the first is under 500,000, the second crosses it, the third is refused.
    expect(model.calls.length).toBeLessThanOrEqual(2 * failed.length);
    expect(model.remaining()).toBeGreaterThanOrEqual(10 - 2 * failed.length);
    for (const f of failed) {
      // The agent's stream said 1 token a call: only the proxy's count could stop it.
      const budget = f.failures.find((x) => x.check === 'budget');
      expect(budget?.message).toContain('(metered by the key proxy), at or over the node');
      expect(budget?.message).toContain('500,000 tokens (budget.tokens)');
      expect((f.usage as { metered?: { calls: number } }).metered?.calls).toBeLessThanOrEqual(2);
      expect(f.usage.input_tokens).toBeGreaterThan(500_000 - 340_000);
    }
    const all = failed.reduce((n, f) => n + (f.usage.input_tokens ?? 0), 0);
    expect(all).toBe(billed(model).input);
    expect(events.some((e) => e.type === 'NodeEscalated' && e.node === 'work')).toBe(true);
    expect(sb.lines('calls.txt').length).toBeLessThanOrEqual(2 * failed.length);
  }, 120_000);

  it("the repository's daily cost cap stops the call after the one that reached it", async (ctx) => {
    const script = Array.from({ length: 10 }, (_, i) => bash(i + 1));
    const { model, events } = await run(ctx, script, '', {
      '.github/interlock.yml': 'budget:\n  daily_usd: 1\n',
    });
    // $1.23 a call at Sonnet 4.5's default price: the first reaches the $1 cap, the second is refused.
    expect(model.calls).toHaveLength(1);
    const failed = events.find((e) => e.type === 'NodeFailed' && e.node === 'work') as
      | Extract<JournalEvent, { type: 'NodeFailed' }>
      | undefined;
    expect(failed, JSON.stringify(events).slice(-2000)).toBeDefined();
    const budget = failed!.failures.find((f) => f.check === 'budget');
    expect(budget?.message).toContain("at or over the repository's daily cost cap, $1.00 left of $1.00");
    expect(failed!.usage.cost_usd).toBeCloseTo(billed(model).cost, 6);
    // The next attempt is not dispatched: the day's metered spend is over the cap.
    const escalated = events.find((e) => e.type === 'NodeEscalated' && e.node === 'work');
    expect(JSON.stringify(escalated)).toContain('daily cost cap');
  }, 120_000);

  it.skipIf(!!missing('codex'))(
    "Codex's calls are metered too: over its WebSocket, each response.create one call, cached input kept apart",
    async (ctx) => {
      const model = await startModelServer({
        script: [
          {
            text: 'Looking.',
            tools: [{ name: 'exec_command', input: { cmd: 'echo 1 >> calls.txt' } }],
            usage: { input_tokens: 30_000, output_tokens: 2_000, cached_input_tokens: 10_000 },
          },
          {
            text: 'Done.',
            usage: { input_tokens: 50_000, output_tokens: 3_000, cached_input_tokens: 20_000 },
          },
        ],
      });
      models.push(model);
      const sb = sandbox(ctx, 'interlock-metered-codex-');
      mkdirSync(sb.path('home'), { recursive: true });
      const agent = codexOwnProviderAgent().map(shellWord).join(' ');
      sb.write(
        'graph.yml',
        `interlock: 1\nname: metered\ndefaults:\n  engine: codex\nnodes:\n  - id: work\n    agent: ${JSON.stringify(agent)}\n    prompt: Append to calls.txt.\n    validates:\n      - file: calls.txt\n`,
      );
      const r = await sb.cli(
        ['run', 'graph.yml', '--all', '--run-id', 'c', '--agent-credentials', 'OPENAI_API_KEY'],
        {
          OPENAI_API_KEY: 'sk-REALKEY-codex',
          OPENAI_BASE_URL: `${model.url}/v1`,
          HOME: sb.path('home'),
          CODEX_HOME: sb.path('home'),
        },
      );
      expect(r.code, r.stderr.slice(-2500)).toBe(0);
      const events = (JSON.parse(sb.read('.interlock/runs/c.json')!) as { events: JournalEvent[] }).events;
      const rec = events.find((e) => e.type === 'NodeRecorded') as Extract<
        JournalEvent,
        { type: 'NodeRecorded' }
      >;
      const metered = (rec.usage as { metered?: Record<string, number> }).metered;
      // Every call went over the WebSocket (none fell back to HTTPS): Codex's prewarm (`generate: false`, billed
      // nothing) and its two turns, each a call.
      expect(
        model.requests.filter((q) => q.api === 'openai').map((q) => [q.method, q.websocket, q.side]),
      ).toEqual([
        ['GET', true, true],
        ['GET', true, false],
        ['GET', true, false],
      ]);
      expect(metered).toMatchObject({
        calls: 3,
        input_tokens: 80_000,
        cache_read_input_tokens: 30_000,
        output_tokens: 5_000,
      });
      expect(rec.usage.input_tokens).toBe(110_000);
      // Recorded as the HTTPS calls are, one line per response.create: the upgrade's method, the message, and the
      // server's messages one per line, the last the response.completed that was metered.
      const lines = sb
        .read('.interlock/runs/c.logs/work-1.model.jsonl')!
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { method: string; path: string; request: string; answer: string });
      expect(lines.map((l) => [l.method, l.path, JSON.parse(l.request).type])).toEqual(
        Array(3).fill(['GET', '/v1/responses', 'response.create']),
      );
      expect(lines.map((l) => JSON.parse(l.answer.split('\n').at(-1)!).response.usage.output_tokens)).toEqual(
        [0, 2_000, 3_000],
      );
      // gpt-5.1-codex at gpt-5's price: $1.25 a million input, $0.125 cached, $10 output.
      expect(rec.usage.cost_usd).toBeCloseTo((80_000 * 1.25 + 30_000 * 0.125 + 5_000 * 10) / 1e6, 6);
      // Codex reports the same tokens itself: no difference.
      expect(rec.usage).not.toHaveProperty('difference');
      expect((rec.usage as { reported?: unknown }).reported).toEqual({
        input_tokens: 110_000,
        output_tokens: 5_000,
      });
    },
    120_000,
  );

  it.skipIf(!!missing('codex'))(
    'Codex over its WebSocket is stopped at its budget: the response.create past it never reaches the server',
    async (ctx) => {
      const call = (n: number): ScriptedTurn => ({
        text: `Call ${n}.`,
        tools: [{ name: 'exec_command', input: { cmd: `echo ${n} >> calls.txt` } }],
        usage: { input_tokens: 90_000, output_tokens: 10_000 },
      });
      const model = await startModelServer({ script: Array.from({ length: 10 }, (_, i) => call(i + 1)) });
      models.push(model);
      const sb = sandbox(ctx, 'interlock-metered-codex-budget-');
      mkdirSync(sb.path('home'), { recursive: true });
      const agent = codexOwnProviderAgent().map(shellWord).join(' ');
      sb.write(
        'graph.yml',
        `interlock: 1\nname: metered\ndefaults:\n  engine: codex\nnodes:\n  - id: work\n    agent: ${JSON.stringify(agent)}\n    prompt: Append to calls.txt until told to stop.\n    budget: { tokens: 150000 }\n    validates:\n      - file: calls.txt\n`,
      );
      await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'c', '--agent-credentials', 'OPENAI_API_KEY'], {
        OPENAI_API_KEY: 'sk-REALKEY-codex',
        OPENAI_BASE_URL: `${model.url}/v1`,
        HOME: sb.path('home'),
        CODEX_HOME: sb.path('home'),
      });
      const events = (JSON.parse(sb.read('.interlock/runs/c.json')!) as { events: JournalEvent[] }).events;
      const failed = events.filter((e) => e.type === 'NodeFailed' && e.node === 'work') as Array<
        Extract<JournalEvent, { type: 'NodeFailed' }>
      >;
      expect(failed.length, JSON.stringify(events).slice(-2000)).toBeGreaterThanOrEqual(1);
      // 100,000 tokens a call: the first is under 150,000, the second crosses it, the third is refused on the
      // socket. Every call the server saw came over the WebSocket.
      expect(model.calls.length).toBe(2 * failed.length);
      expect(model.requests.every((q) => q.websocket)).toBe(true);
      for (const f of failed) {
        const budget = f.failures.find((x) => x.check === 'budget');
        expect(budget?.message, JSON.stringify([f.failures, f.usage])).toContain(
          '200,000 tokens (metered by the key proxy), at or over the node',
        );
        expect((f.usage as { metered?: { calls: number } }).metered?.calls).toBe(3);
      }
    },
    120_000,
  );

  it.skipIf(!!missing('gemini'))(
    "Gemini's calls are metered from usageMetadata: the streamed answer's last count, cached input kept apart",
    async (ctx) => {
      const model = await startModelServer({
        script: [
          {
            text: 'Looking.',
            tools: [{ name: 'run_shell_command', input: { command: 'echo 1 >> calls.txt' } }],
            usage: { input_tokens: 30_000, output_tokens: 2_000, cached_input_tokens: 10_000 },
          },
          {
            text: 'Done.',
            usage: { input_tokens: 50_000, output_tokens: 3_000, cached_input_tokens: 20_000 },
          },
        ],
      });
      models.push(model);
      const sb = sandbox(ctx, 'interlock-metered-gemini-');
      const agent = [geminiBin!, '--approval-mode', 'yolo'].map(shellWord).join(' ');
      sb.write(
        'graph.yml',
        `interlock: 1\nname: metered\ndefaults:\n  engine: gemini\nnodes:\n  - id: work\n    agent: ${JSON.stringify(agent)}\n    prompt: Append to calls.txt.\n    validates:\n      - file: calls.txt\n`,
      );
      const env = { ...geminiEnv(model.url, sb.path('home')), GEMINI_API_KEY: 'REALKEY-gemini' };
      const r = await sb.cli(
        ['run', 'graph.yml', '--all', '--run-id', 'g', '--agent-credentials', 'GEMINI_API_KEY'],
        env,
      );
      expect(r.code, r.stderr.slice(-2500)).toBe(0);
      const events = (JSON.parse(sb.read('.interlock/runs/g.json')!) as { events: JournalEvent[] }).events;
      const rec = events.find((e) => e.type === 'NodeRecorded') as Extract<
        JournalEvent,
        { type: 'NodeRecorded' }
      >;
      // promptTokenCount holds the cached tokens: each call's input is its prompt less its cached part.
      expect((rec.usage as { metered?: Record<string, number> }).metered).toMatchObject({
        calls: 2,
        input_tokens: 80_000,
        cache_read_input_tokens: 30_000,
        output_tokens: 5_000,
      });
      expect(rec.usage.input_tokens).toBe(110_000);
      expect(rec.usage.output_tokens).toBe(5_000);
      // The upstream got the real key; the agent had only its placeholder.
      expect(model.calls.every((c) => JSON.stringify(c.headers ?? {}).includes('REALKEY-gemini'))).toBe(true);
    },
    120_000,
  );

  // Copilot CLI's tokens are metered as the API of the provider it is pointed at: Anthropic's Messages (streamed,
  // the output in the last message_delta), or Azure OpenAI's chat completions (the usage chunk its stream asks for).
  const providers = [
    {
      name: 'an Anthropic provider',
      model: 'claude-sonnet-4.5',
      env: (url: string) => ({ COPILOT_PROVIDER_TYPE: 'anthropic', COPILOT_PROVIDER_BASE_URL: url }),
      path: '/v1/messages',
    },
    {
      name: 'an Azure OpenAI provider',
      model: 'gpt-5.1',
      env: (url: string) => ({ COPILOT_PROVIDER_TYPE: 'azure', COPILOT_PROVIDER_BASE_URL: url }),
      path: '/openai/v1/chat/completions',
    },
  ];
  for (const p of providers)
    it.skipIf(!!missing('copilot'))(
      `Copilot's calls are metered as its provider's API: ${p.name}`,
      async (ctx) => {
        const model = await startModelServer({
          script: [
            {
              text: 'Looking.',
              tools: [{ name: 'bash', input: { command: 'echo 1 >> calls.txt', description: 'append' } }],
              usage: { input_tokens: 30_000, output_tokens: 2_000, cached_input_tokens: 10_000 },
            },
            {
              text: 'Done.',
              usage: { input_tokens: 50_000, output_tokens: 3_000, cached_input_tokens: 20_000 },
            },
          ],
        });
        models.push(model);
        const sb = sandbox(ctx, 'interlock-metered-copilot-');
        const agent = [copilotBin!, '--allow-all'].map(shellWord).join(' ');
        sb.write(
          'graph.yml',
          `interlock: 1\nname: metered\ndefaults:\n  engine: copilot\nnodes:\n  - id: work\n    agent: ${JSON.stringify(agent)}\n    prompt: Append to calls.txt.\n    validates:\n      - file: calls.txt\n`,
        );
        const env = {
          ...copilotEnv(model.url, agentHome('copilot')),
          ...p.env(model.url),
          COPILOT_MODEL: p.model,
          COPILOT_PROVIDER_API_KEY: 'REALKEY-copilot',
        };
        const r = await sb.cli(
          ['run', 'graph.yml', '--all', '--run-id', 'p', '--agent-credentials', 'COPILOT_PROVIDER_API_KEY'],
          env,
        );
        expect(r.code, r.stderr.slice(-2500)).toBe(0);
        expect(model.calls.map((c) => c.path)).toEqual([p.path, p.path]);
        const events = (JSON.parse(sb.read('.interlock/runs/p.json')!) as { events: JournalEvent[] }).events;
        const rec = events.find((e) => e.type === 'NodeRecorded') as Extract<
          JournalEvent,
          { type: 'NodeRecorded' }
        >;
        // Every call the server billed (side calls included), cached input kept apart.
        const want = billed(model);
        const side = model.requests.filter((q) => q.billed && q.side);
        const sideInput = side.reduce((n, q) => n + q.billed!.input_tokens, 0);
        expect((rec.usage as { metered?: Record<string, unknown> }).metered).toMatchObject({
          calls: model.requests.filter((q) => q.billed).length,
          input_tokens: 80_000 + sideInput,
          cache_read_input_tokens: 30_000,
          output_tokens: want.output,
        });
        expect(rec.usage.input_tokens).toBe(want.input);
        expect(rec.usage.output_tokens).toBe(want.output);
        expect(model.requests.every((q) => JSON.stringify(q.headers).includes('REALKEY-copilot'))).toBe(true);
      },
      180_000,
    );
});
