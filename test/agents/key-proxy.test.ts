// The model key behind the key proxy, with the real agent CLIs as nodes against the scripted model server, through
// the bundled action as root under the default isolation (key-proxy-cli.test.ts: through the CLI). The agent's
// own tool runs test/support/reveal-keys.mjs, which looks for the real key everywhere a node can: its environment,
// /proc/self/environ, the environ and memory of the interlock process (the proxy's), and the files it can read.
// The model server sees the real key; the agent only the placeholder.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { FULL, issueStep, OWNER, REPO, readJournal, routeLabel } from '../action/world.js';
import { requireBundle } from '../crash/harness.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { copilotBin, geminiBin, missing } from '../support/agent-clis.js';
import { ORDER_CLOCK } from '../support/clock.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { giveTo, noSudoRunner, type RunnerUser, sudoRunner } from '../support/sudo-runner.js';
import {
  claudeAgent,
  claudeScript,
  claudeStepEnv,
  codexAgent,
  codexScript,
  expectOnlyPlaceholders,
  expectRealKeyUpstream,
  GRAPH_FILE,
  graph,
  REAL_ANTHROPIC,
  REAL_OPENAI,
  REPORTED,
  REVEAL,
  type Revealed,
  refused,
  root,
  shownLog,
} from './key-proxy-support.js';

const actionWhy = !root ? 'nodes run isolated only as root here' : undefined;
if (actionWhy) console.warn(`key-proxy.test.ts (action) skipped: ${actionWhy}`);

describe.skipIf(!!actionWhy)('through the bundled action, under the default isolation', () => {
  let github: GitHubServer;
  let model: ModelServer | undefined;
  let issue = 30;
  beforeAll(async () => {
    requireBundle();
    // The order clock (test/support/clock.ts): what is tested is where the key goes, not GitHub's timing.
    github = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }], likeGitHub: ORDER_CLOCK });
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
