// The model key behind the key proxy, with the real Claude Code and Codex CLIs as nodes against the scripted model
// server: through the bundled action as root under the default isolation, and through the CLI. The agent's own
// tool runs test/support/reveal-keys.mjs, which looks for the real key everywhere a node can: its environment,
// /proc/self/environ, the environ and memory of the interlock process (the proxy's), and the files it can read.
// The model server sees the real key; the agent only the placeholder.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { FULL, issueStep, OWNER, REPO, readJournal, routeLabel } from '../action/world.js';
import { cleanupSandboxes, requireBundle, sandbox } from '../crash/harness.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
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
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import {
  type ModelServer,
  type ScriptedToolCall,
  type ScriptedTurn,
  startModelServer,
} from '../support/model-server.js';
import { giveTo, noSudoRunner, type RunnerUser, sudoRunner } from '../support/sudo-runner.js';

const REVEAL = readFileSync(new URL('../support/reveal-keys.mjs', import.meta.url), 'utf8');
/** The step's log as the runner shows it: it takes the `::add-mask::` commands the step sends and prints none. */
const shownLog = (log: string) => log.replace(/^::add-mask::.*$/gm, '');

const REAL_ANTHROPIC = `sk-ant-REALKEY-${randomBytes(12).toString('hex')}`;
const REAL_OPENAI = `sk-REALKEY-${randomBytes(12).toString('hex')}`;
const REAL_AZURE = `REALKEY${randomBytes(12).toString('hex')}`;
const GRAPH_FILE = '.github/interlock/keyed.yml';
/**
 * The answer to a model call past the script. Copilot CLI's bash tool waits 30 s for a command (its default
 * `initial_wait`), then leaves it running and tells the model; when the command ends it calls the model once more.
 * reveal-keys.mjs walks the node's readable files (the temp folder among them): under load it has outlasted the
 * 30 s, and that extra call, unscripted, was answered 500 and failed the attempt. The scan's length is load-bound;
 * the number of calls is the CLI's to choose: the model answers them all.
 */
const REPORTED: ScriptedTurn = { text: 'Reported.' };
const root = process.getuid?.() === 0;

interface Revealed {
  env: Record<string, string | null>;
  noProxy: string | null;
  /** Real keys in the environ of the processes between the tool and interlock (the agent CLI's own). */
  agentEnviron: string[];
  selfEnviron: string[];
  interlockPid: number | null;
  interlockEnviron: string;
  interlockMem: string;
  files: string[];
}

const graph = (engine: string, agent: string) => `interlock: 1
name: keyed
defaults:
  engine: ${engine}
nodes:
  - id: implement
    agent: ${JSON.stringify(agent)}
    prompt: Write report.json.
    validates:
      - file: report.json
`;

/** Claude Code on loopback, with no config folder given: under isolation it uses its own home's. */
const claudeStepEnv = (url: string) => ({
  ANTHROPIC_BASE_URL: url,
  ANTHROPIC_API_KEY: REAL_ANTHROPIC,
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
});
const claudeAgent = () => [claudeBin!, '-p', '--allowedTools', 'Bash'].map(shellWord).join(' ');
const claudeScript: ScriptedTurn[] = [
  {
    text: 'Looking.',
    tools: [{ name: 'Bash', input: { command: 'node reveal-keys.mjs report.json', description: 'look' } }],
  },
  { text: 'Reported.' },
];

/** Codex with its own OpenAI provider (no provider of the test's): interlock points it at the proxy. */
const codexAgent = () => codexOwnProviderAgent().map(shellWord).join(' ');
const codexScript: ScriptedTurn[] = [
  { text: 'Looking.', tools: [{ name: 'exec_command', input: { cmd: 'node reveal-keys.mjs report.json' } }] },
  { text: 'Reported.' },
];

/** What the agent found holds only placeholders: no trace of a real key in anything it could reach. */
function expectOnlyPlaceholders(r: Revealed, api: 'anthropic' | 'openai'): void {
  expect(JSON.stringify(r)).not.toContain('REALKEY');
  if (api === 'anthropic') {
    expect(r.env.ANTHROPIC_API_KEY).toMatch(/^sk-ant-interlock-placeholder-[A-Za-z0-9_-]{32}$/);
    expect(r.env.ANTHROPIC_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  } else {
    expect(r.env.OPENAI_API_KEY).toMatch(/^sk-interlock-placeholder-[A-Za-z0-9_-]{32}$/);
    expect(r.env.CODEX_API_KEY).toBe(r.env.OPENAI_API_KEY);
    expect(r.env.OPENAI_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  }
  expect(r.selfEnviron).toEqual([]);
  expect(r.files).toEqual([]);
  expect(r.noProxy).toMatch(/(^|,)127\.0\.0\.1(,|$)/);
  expect(r.noProxy).toMatch(/(^|,)localhost(,|$)/);
}

/** Every request that reached the model server carried the real key, and only the real key. */
function expectRealKeyUpstream(model: ModelServer, api: 'anthropic' | 'openai'): void {
  expect(model.calls.length).toBeGreaterThanOrEqual(2);
  for (const r of model.requests) {
    if (api === 'anthropic') expect(r.headers['x-api-key']).toBe(REAL_ANTHROPIC);
    else expect(r.headers.authorization).toBe(`Bearer ${REAL_OPENAI}`);
  }
}

/** The proxy's port refuses connections once the step is over. */
function refused(baseUrl: string): Promise<string> {
  const u = new URL(baseUrl);
  return new Promise((resolve) => {
    const req = request({ host: u.hostname, port: u.port, method: 'HEAD', path: '/' }, (res) =>
      resolve(`answered ${res.statusCode}`),
    );
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    req.end();
  });
}

const actionWhy = !root ? 'nodes run isolated only as root here' : undefined;
if (actionWhy) console.warn(`key-proxy.test.ts (action) skipped: ${actionWhy}`);

describe.skipIf(!!actionWhy)('through the bundled action, under the default isolation', () => {
  let github: GitHubServer;
  let model: ModelServer | undefined;
  let issue = 30;
  beforeAll(async () => {
    requireBundle();
    github = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
  });
  afterEach(async () => {
    await model?.close();
    model = undefined;
  });
  afterAll(async () => {
    await github?.close();
  });

  async function step(engine: string, agent: string, env: Record<string, string>, as?: RunnerUser) {
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:k', GRAPH_FILE),
      [GRAPH_FILE]: graph(engine, agent),
      'reveal-keys.mjs': REVEAL,
    });
    const n = ++issue;
    github.state.repo(FULL).addIssue({ number: n, title: 'keyed', labels: ['agent:k'] });
    const runnerTemp = mkdtempSync(join(tmpdir(), 'interlock-job-temp-'));
    if (as) for (const p of [ws, runnerTemp, as.home]) giveTo(p, as);
    const result = await runStep(
      issueStep(github, ws, n, 'agent:k', {
        env: { ...env, RUNNER_TEMP: runnerTemp, ...(as ? { HOME: as.home } : {}) },
        ...(as ? { as: { uid: as.uid, gid: as.gid, home: as.home } } : {}),
      }),
    );
    if (!existsSync(join(ws, 'report.json')))
      throw new Error(`no report.json; the step's log:\n${result.log.slice(-4000)}`);
    const report = JSON.parse(readFileSync(join(ws, 'report.json'), 'utf8')) as Revealed;
    return { result, report, journal: JSON.stringify(readJournal(github, `keyed/issue-${n}`)) };
  }

  it.skipIf(!!missing('claude'))(
    'Claude Code: the model server gets the real key; the agent finds only the placeholder',
    async () => {
      model = await startModelServer({ script: claudeScript });
      const { result, report, journal } = await step('claude-code', claudeAgent(), claudeStepEnv(model.url));
      expect(result.outputs.status, result.log.slice(-2500)).toBe('completed');
      expectRealKeyUpstream(model, 'anthropic');
      expectOnlyPlaceholders(report, 'anthropic');
      // The proxy lives in the action's process, as the runner's user: the node user cannot read it.
      expect(report.interlockPid).toBeGreaterThan(1);
      expect(report.interlockEnviron).toBe('unreadable: EACCES');
      expect(report.interlockMem).toBe('unreadable: EACCES');
      expect(result.log).toContain('ANTHROPIC_API_KEY served through the key proxy on 127.0.0.1:');
      expect(shownLog(result.log) + journal).not.toContain('REALKEY');
      expect(await refused(report.env.ANTHROPIC_BASE_URL!)).toBe('ECONNREFUSED');
    },
    120_000,
  );

  const noSudo = noSudoRunner();
  it.skipIf(!!missing('claude') || !!noSudo)(
    'Claude Code through passwordless sudo (a hosted runner): the same, the environment read from its file',
    async () => {
      model = await startModelServer({ script: claudeScript });
      const { result, report } = await step(
        'claude-code',
        claudeAgent(),
        claudeStepEnv(model.url),
        sudoRunner(),
      );
      expect(result.outputs.status, result.log.slice(-2500)).toBe('completed');
      expectRealKeyUpstream(model, 'anthropic');
      expectOnlyPlaceholders(report, 'anthropic');
      expect(report.interlockEnviron).toBe('unreadable: EACCES');
      expect(report.interlockMem).toBe('unreadable: EACCES');
    },
    120_000,
  );

  it.skipIf(!!missing('codex'))(
    "Codex (its own OpenAI provider): the same, through the proxy's Responses API",
    async () => {
      model = await startModelServer({ script: codexScript });
      const { result, report, journal } = await step('codex', codexAgent(), {
        OPENAI_API_KEY: REAL_OPENAI,
        OPENAI_BASE_URL: `${model.url}/v1`,
      });
      expect(result.outputs.status, result.log.slice(-2500)).toBe('completed');
      expectRealKeyUpstream(model, 'openai');
      expectOnlyPlaceholders(report, 'openai');
      expect(report.interlockEnviron).toBe('unreadable: EACCES');
      expect(report.interlockMem).toBe('unreadable: EACCES');
      expect(shownLog(result.log) + journal).not.toContain('REALKEY');
    },
    120_000,
  );

  // Gemini CLI with no settings of its own (interlock gives the node's fresh home the one that selects the key) and
  // Copilot CLI with a provider of its own: the same.
  const REAL_GEMINI = `sk-REALKEY-${randomBytes(12).toString('hex')}`;
  const more = [
    {
      engine: 'gemini',
      cli: 'gemini' as const,
      agent: () => [geminiBin!, '--approval-mode', 'yolo'],
      tool: { name: 'run_shell_command', input: { command: 'node reveal-keys.mjs report.json' } },
      env: (url: string) => ({
        GEMINI_API_KEY: REAL_GEMINI,
        GOOGLE_GEMINI_BASE_URL: url,
        GEMINI_MODEL: 'gemini-2.5-flash',
      }),
      upstreamKey: (r: ModelServer['requests'][number]) => r.headers['x-goog-api-key'],
      real: REAL_GEMINI,
    },
    {
      engine: 'copilot',
      cli: 'copilot' as const,
      agent: () => [copilotBin!, '--allow-all'],
      tool: { name: 'bash', input: { command: 'node reveal-keys.mjs report.json', description: 'look' } },
      env: (url: string) => ({
        COPILOT_PROVIDER_TYPE: 'anthropic',
        COPILOT_PROVIDER_BASE_URL: url,
        COPILOT_PROVIDER_API_KEY: REAL_ANTHROPIC,
        COPILOT_MODEL: 'claude-sonnet-4.5',
      }),
      upstreamKey: (r: ModelServer['requests'][number]) => r.headers['x-api-key'],
      real: REAL_ANTHROPIC,
    },
  ];
  for (const e of more)
    for (const via of ['root', 'sudo'] as const)
      it.skipIf(!!missing(e.cli) || (via === 'sudo' && !!noSudo))(
        `${e.engine}${via === 'sudo' ? ' through passwordless sudo' : ''}: the model server gets the real key; the agent finds only the placeholder`,
        async () => {
          model = await startModelServer({
            script: [{ text: 'Looking.', tools: [e.tool] }, { text: 'Reported.' }],
            whenDone: REPORTED,
          });
          const agent = e.agent().map(shellWord).join(' ');
          const as = via === 'sudo' ? sudoRunner() : undefined;
          const { result, report, journal } = await step(e.engine, agent, e.env(model.url), as);
          expect(result.outputs.status, result.log.slice(-2500)).toBe('completed');
          expect(model.calls.length).toBeGreaterThanOrEqual(2);
          for (const q of model.requests) expect(e.upstreamKey(q)).toBe(e.real);
          expect(JSON.stringify(report)).not.toContain('REALKEY');
          expect(report.agentEnviron).toEqual([]);
          expect(report.interlockEnviron).toBe('unreadable: EACCES');
          expect(report.interlockMem).toBe('unreadable: EACCES');
          expect(shownLog(result.log) + journal).not.toContain('REALKEY');
        },
        180_000,
      );
});

describe('through the CLI, with --agent-credentials', () => {
  beforeAll(requireBundle);
  afterEach(cleanupSandboxes);

  it.skipIf(!!missing('claude'))(
    'Claude Code: the model server gets the real key; its env, /proc/self and files hold only the placeholder',
    async (ctx) => {
      const model = await startModelServer({ script: claudeScript });
      try {
        const sb = sandbox(ctx, 'interlock-keyed-');
        sb.write('reveal-keys.mjs', REVEAL);
        sb.write('graph.yml', graph('claude-code', claudeAgent()));
        const r = await sb.cli(
          ['run', 'graph.yml', '--all', '--run-id', 'k', '--agent-credentials', 'ANTHROPIC_API_KEY'],
          { ...claudeStepEnv(model.url), CLAUDE_CONFIG_DIR: sb.path('claude'), HOME: sb.path('claude') },
        );
        expect(r.code, r.stderr.slice(-2500)).toBe(0);
        expect(r.stderr).toContain('ANTHROPIC_API_KEY served through the key proxy on 127.0.0.1:');
        expectRealKeyUpstream(model, 'anthropic');
        const report = JSON.parse(sb.read('report.json')!) as Revealed;
        const { interlockEnviron, interlockMem, ...rest } = report;
        expectOnlyPlaceholders({ ...rest, interlockEnviron: '', interlockMem: '' }, 'anthropic');
        // What the CLI does not stop: its nodes run as the user who runs it, who can read its own process
        // (SECURITY.md). Pinned here so that a change to it updates the docs too.
        expect(interlockEnviron).toContain(REAL_ANTHROPIC);
        expect(interlockMem).toBeTruthy();
        expect(sb.read('.interlock/runs/k.json')).not.toContain('REALKEY');
      } finally {
        await model.close();
      }
    },
    120_000,
  );

  /** A case of the table below: an engine, its key's variables and where the upstream finds the real key. */
  interface KeyedCase {
    engine: string;
    label?: string;
    cli: 'gemini' | 'copilot';
    keyName: string;
    base: string;
    agent: () => string[];
    tool: ScriptedToolCall;
    env: (url: string) => Record<string, string>;
    upstreamKey: (r: ModelServer['requests'][number]) => string | string[] | undefined;
    /** The one path and query every model call reached the server on, when the case pins it. */
    upstreamCall?: [string, string];
    real: string;
  }
  /** Copilot CLI with a provider of its own: the provider's variables (over copilotEnv's) and its key's place. */
  const copilotCase = (
    c: Pick<KeyedCase, 'label' | 'upstreamKey' | 'upstreamCall' | 'real'> & {
      env: (url: string) => Record<string, string>;
    },
  ): KeyedCase => ({
    engine: 'copilot',
    cli: 'copilot',
    keyName: 'COPILOT_PROVIDER_API_KEY',
    base: 'COPILOT_PROVIDER_BASE_URL',
    agent: () => [copilotBin!, '--allow-all'],
    tool: { name: 'bash', input: { command: 'node reveal-keys.mjs report.json', description: 'look' } },
    ...c,
    env: (url) => ({ ...copilotEnv(url, agentHome('copilot')), ...c.env(url) }),
  });

  // Gemini CLI and Copilot CLI (a provider of its own, Anthropic's API): the same, each through its own variables.
  const engines: KeyedCase[] = [
    {
      engine: 'gemini',
      cli: 'gemini' as const,
      keyName: 'GEMINI_API_KEY',
      base: 'GOOGLE_GEMINI_BASE_URL',
      agent: () => [geminiBin!, '--approval-mode', 'yolo'],
      tool: { name: 'run_shell_command', input: { command: 'node reveal-keys.mjs report.json' } },
      env: (url: string) => ({ ...geminiEnv(url, agentHome('gemini')), GEMINI_API_KEY: REAL_OPENAI }),
      upstreamKey: (r: ModelServer['requests'][number]) => r.headers['x-goog-api-key'],
      real: REAL_OPENAI,
    },
    copilotCase({
      upstreamKey: (r) => r.headers['x-api-key'],
      env: () => ({ COPILOT_PROVIDER_API_KEY: REAL_ANTHROPIC }),
      real: REAL_ANTHROPIC,
    }),
    // An OpenAI-style provider: the Responses API under the base URL's /v1.
    copilotCase({
      label: 'copilot (an OpenAI Responses provider)',
      env: (url) => ({
        COPILOT_PROVIDER_TYPE: 'openai',
        COPILOT_PROVIDER_WIRE_API: 'responses',
        COPILOT_PROVIDER_BASE_URL: `${url}/v1`,
        COPILOT_MODEL: 'gpt-5.1',
        COPILOT_PROVIDER_API_KEY: REAL_OPENAI,
      }),
      upstreamKey: (r) => r.headers.authorization?.replace(/^Bearer /, ''),
      real: REAL_OPENAI,
    }),
    // Azure OpenAI, Copilot's default wire API: chat completions on the versionless v1 route, the key in api-key.
    copilotCase({
      label: 'copilot (an Azure OpenAI provider, chat completions on the v1 route)',
      env: () => ({
        COPILOT_PROVIDER_TYPE: 'azure',
        COPILOT_MODEL: 'gpt-5.1',
        COPILOT_PROVIDER_API_KEY: REAL_AZURE,
      }),
      upstreamKey: (r) => r.headers['api-key'],
      upstreamCall: ['/openai/v1/chat/completions', ''],
      real: REAL_AZURE,
    }),
    // With an API version: the versioned route of the deployment, the version in the query.
    copilotCase({
      label: 'copilot (an Azure OpenAI provider, a deployment with an API version)',
      env: () => ({
        COPILOT_PROVIDER_TYPE: 'azure',
        COPILOT_PROVIDER_AZURE_API_VERSION: '2024-10-21',
        COPILOT_PROVIDER_MODEL_ID: 'gpt-5.1',
        COPILOT_PROVIDER_WIRE_MODEL: 'team-gpt',
        COPILOT_MODEL: 'gpt-5.1',
        COPILOT_PROVIDER_API_KEY: REAL_AZURE,
      }),
      upstreamKey: (r) => r.headers['api-key'],
      upstreamCall: ['/openai/deployments/team-gpt/chat/completions', '?api-version=2024-10-21'],
      real: REAL_AZURE,
    }),
  ];
  for (const e of engines)
    it.skipIf(!!missing(e.cli))(
      `${e.label ?? e.engine}: the model server gets the real key; the agent, its tools and the CLI's own process only the placeholder`,
      async (ctx) => {
        const model = await startModelServer({
          script: [{ text: 'Looking.', tools: [e.tool] }, { text: 'Reported.' }],
          whenDone: REPORTED,
        });
        try {
          const sb = sandbox(ctx, 'interlock-keyed-');
          sb.write('reveal-keys.mjs', REVEAL);
          sb.write('graph.yml', graph(e.engine, e.agent().map(shellWord).join(' ')));
          const r = await sb.cli(
            ['run', 'graph.yml', '--all', '--run-id', 'k', '--agent-credentials', e.keyName],
            e.env(model.url),
          );
          expect(r.code, r.stderr.slice(-2500)).toBe(0);
          expect(r.stderr).toContain(`${e.keyName} served through the key proxy on 127.0.0.1:`);
          expect(model.calls.length).toBeGreaterThanOrEqual(2);
          for (const q of model.requests) expect(e.upstreamKey(q)).toBe(e.real);
          if (e.upstreamCall)
            expect(new Set(model.calls.map((q) => [q.path, q.query].join('')))).toEqual(
              new Set([e.upstreamCall.join('')]),
            );
          const report = JSON.parse(sb.read('report.json')!) as Revealed;
          const { interlockEnviron: _i, interlockMem: _m, ...rest } = report;
          expect(JSON.stringify(rest)).not.toContain('REALKEY');
          expect(report.agentEnviron).toEqual([]);
          // Gemini's tools get the placeholder and the proxy's address; Copilot's tools get neither variable.
          if (e.engine === 'gemini') {
            expect(report.env[e.keyName]).toMatch(/interlock-placeholder-/);
            expect(report.env[e.base]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
          } else expect([report.env[e.keyName], report.env[e.base]]).toEqual([null, null]);
          expect(sb.read('.interlock/runs/k.json')).not.toContain('REALKEY');
        } finally {
          await model.close();
        }
      },
      120_000,
    );

  it('without the flag the CLI passes the key on as before (the proxy is opt-in there)', async (ctx) => {
    const sb = sandbox(ctx, 'interlock-keyed-');
    sb.write(
      'graph.yml',
      'interlock: 1\nname: plain\nnodes:\n  - id: a\n    run: printf "%s|%s" "$ANTHROPIC_API_KEY" "$NO_PROXY" > seen.txt\n    validates:\n      - file: seen.txt\n',
    );
    const r = await sb.cli(['run', 'graph.yml', '--all'], { ANTHROPIC_API_KEY: REAL_ANTHROPIC });
    expect(r.code, r.stderr).toBe(0);
    expect(sb.read('seen.txt')).toBe(`${REAL_ANTHROPIC}|`);
    const bad = await sb.cli([
      'run',
      'graph.yml',
      '--all',
      '--run-id',
      'b',
      '--agent-credentials',
      'NPM_TOKEN',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--agent-credentials: "NPM_TOKEN" is not a model key interlock can serve');
  });
});
