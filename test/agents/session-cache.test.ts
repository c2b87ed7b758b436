// One session across workflow runs (issue 26, item 5), through the bundled action as root with the real Claude
// Code CLI against the scripted model server: the first workflow run's node saves its session's transcripts to
// the Actions cache (a local stand-in of the cache service, v2), and a later workflow run's node of the same
// session, on a machine without them, restores them and resumes the conversation. Without the cache, the later
// node says so and starts a fresh session whose task envelope tells it what the earlier node produced.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { eventsOf, FULL, issueStep, OWNER, REPO, readJournal, routeLabel } from '../action/world.js';
import { requireBundle } from '../crash/harness.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import {
  CODEX_MODEL,
  claudeBin,
  claudeEnv,
  codexBin,
  codexConfigArgs,
  codexEnv,
  copilotBin,
  GEMINI_MODEL,
  geminiBin,
  missing,
} from '../support/agent-clis.js';
import { type CacheServer, startCacheServer } from '../support/cache-server.js';
import { ORDER_CLOCK } from '../support/clock.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { giveTo, noSudoRunner, type RunnerUser, sudoRunner } from '../support/sudo-runner.js';

const GRAPH_FILE = '.github/interlock/sessions.yml';
const why =
  missing('claude') ?? (process.getuid?.() !== 0 ? 'nodes run isolated only as root here' : undefined);
if (why) console.warn(`session-cache.test.ts skipped: ${why}`);

let github: GitHubServer | undefined;
let model: ModelServer | undefined;
let cache: CacheServer | undefined;
beforeAll(requireBundle);
afterEach(async () => {
  await github?.close();
  await model?.close();
  await cache?.close();
  github = model = cache = undefined;
});

const graph = (agent: string, engine = 'claude-code') => `interlock: 1
name: sessions
defaults:
  engine: ${engine}
  agent: ${JSON.stringify(agent)}
nodes:
  - id: plan
    session: work
    prompt: PLAN-PROMPT remember the word kumquat.
  - id: build
    session: work
    depends_on: [plan]
    prompt: BUILD-PROMPT which word did I ask you to remember?
`;

/** plan in one workflow run, build in the next (a new step process: a machine without plan's session files). */
async function twoRuns(issue: number, runnerEnv: Record<string, string>, as?: RunnerUser) {
  github = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }], likeGitHub: ORDER_CLOCK });
  model = await startModelServer({ script: [{ text: 'PLAN-ANSWER noted.' }, { text: 'BUILD-ANSWER' }] });
  const ws = makeWorkspace({
    '.github/interlock.yml': routeLabel('agent:s', GRAPH_FILE),
    [GRAPH_FILE]: graph([claudeBin!, '-p'].map(shellWord).join(' ')),
  });
  github.state.repo(FULL).addIssue({ number: issue, title: 'sessions', labels: ['agent:s'] });
  const env: Record<string, string> = { ...claudeEnv(model.url, '/nonexistent-runner-config'), ...runnerEnv };
  // Through sudo, as a hosted runner runs the action: the checkout and the job's temporary folder are the runner
  // user's; each step is a new process, so the second finds plan's transcripts only through the cache.
  const step = (node: string) => {
    if (!as) return runStep(issueStep(github!, ws, issue, 'agent:s', { inputs: { node }, env }));
    const runnerTemp = mkdtempSync(join(tmpdir(), 'interlock-job-temp-'));
    for (const p of [ws, runnerTemp, as.home]) giveTo(p, as);
    return runStep(
      issueStep(github!, ws, issue, 'agent:s', {
        inputs: { node },
        env: { ...env, RUNNER_TEMP: runnerTemp, HOME: as.home },
        as: { uid: as.uid, gid: as.gid, home: as.home },
      }),
    );
  };
  const first = await step('plan');
  expect(first.outputs.status, first.log.slice(-2500)).toBe('completed');
  const second = await step('build');
  expect(second.outputs.status, second.log.slice(-2500)).toBe('completed');
  const j = readJournal(github, `sessions/issue-${issue}`);
  return {
    second,
    plan: eventsOf(j, 'NodeRecorded', 'plan')[0]!,
    build: eventsOf(j, 'NodeRecorded', 'build')[0]!,
    buildSaid: JSON.stringify(model.calls[1]?.body?.messages),
  };
}

describe.skipIf(!!why)('a session across workflow runs', () => {
  it("a later workflow run's node restores the session from the Actions cache and resumes it", async () => {
    cache = await startCacheServer();
    const r = await twoRuns(7, cache.env());
    expect(r.build.resumed_session).toBe(r.plan.session_id);
    // build's request carries plan's conversation: its prompt is in no envelope, only in the resumed session.
    expect(r.buildSaid).toContain('PLAN-PROMPT');
    expect(r.buildSaid).toContain('PLAN-ANSWER');
    expect(r.second.log).toContain(`restored session ${r.plan.session_id} from the Actions cache`);
    // plan's entry is keyed by its session id (and a hash of the repository and run), never in clear text.
    const entry = cache.entries.find((e) => e.key.endsWith(`-work-claude-code-${r.plan.session_id}`));
    expect(entry?.finalized).toBe(true);
    expect(entry!.key).not.toContain(REPO);
    const rpcs = cache.requests.filter((q) => q.rpc).map((q) => `${q.rpc} ${q.status}`);
    expect(rpcs).toContain('GetCacheEntryDownloadURL 200');
    expect(rpcs.filter((x) => x === 'FinalizeCacheEntryUpload 200').length).toBeGreaterThanOrEqual(2);
  }, 180_000);

  it.skipIf(!!noSudoRunner())(
    'the same through passwordless sudo (a hosted runner)',
    async () => {
      cache = await startCacheServer();
      const r = await twoRuns(10, cache.env(), sudoRunner());
      expect(r.second.log).toContain(`restored session ${r.plan.session_id} from the Actions cache`);
      expect(r.build.resumed_session).toBe(r.plan.session_id);
      expect(r.buildSaid).toContain('PLAN-PROMPT');
    },
    180_000,
  );

  it('without the cache, the later node says so and starts a fresh session told what plan produced', async () => {
    const r = await twoRuns(8, {});
    expect(r.build.resumed_session).toBeUndefined();
    expect(r.second.log).toContain(
      `the files of session ${r.plan.session_id} are not on this machine and the Actions cache service is not configured`,
    );
    expect(r.buildSaid).not.toContain('PLAN-PROMPT');
    expect(r.buildSaid).toContain('Your session could not be resumed');
    expect(r.buildSaid).toContain('PLAN-ANSWER');
  }, 180_000);
});

const codexWhy = missing('codex') ?? why;
describe.skipIf(!!codexWhy)('a Codex session across workflow runs', () => {
  it("a later workflow run's node restores the thread from the Actions cache and resumes it", async () => {
    cache = await startCacheServer();
    github = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }], likeGitHub: ORDER_CLOCK });
    model = await startModelServer({ script: [{ text: 'PLAN-ANSWER noted.' }, { text: 'BUILD-ANSWER' }] });
    const agent = [
      codexBin!,
      ...codexConfigArgs(model.url),
      'exec',
      '-m',
      CODEX_MODEL,
      '--skip-git-repo-check',
    ]
      .map(shellWord)
      .join(' ');
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:s', GRAPH_FILE),
      [GRAPH_FILE]: graph(agent, 'codex'),
    });
    github.state.repo(FULL).addIssue({ number: 9, title: 'sessions', labels: ['agent:s'] });
    const env = { ...codexEnv('/nonexistent-runner-codex'), ...cache.env() };
    let log = '';
    for (const node of ['plan', 'build']) {
      const step = await runStep(issueStep(github, ws, 9, 'agent:s', { inputs: { node }, env }));
      expect(step.outputs.status, step.log.slice(-2500)).toBe('completed');
      log = step.log;
    }
    const j = readJournal(github, 'sessions/issue-9');
    const plan = eventsOf(j, 'NodeRecorded', 'plan')[0]!;
    const build = eventsOf(j, 'NodeRecorded', 'build')[0]!;
    expect(build.resumed_session).toBe(plan.session_id);
    expect(log).toContain(`restored session ${plan.session_id} from the Actions cache`);
    expect(JSON.stringify(model.calls[1]?.body?.input)).toContain('PLAN-PROMPT');
    expect(cache.entries.some((e) => e.finalized && e.key.endsWith(`-work-codex-${plan.session_id}`))).toBe(
      true,
    );
  }, 180_000);
});

// Gemini CLI (its transcript found by the 8 characters of the id in its file name) and Copilot CLI (a folder per
// session under session-state/), each with its model key behind the key proxy.
const MORE = [
  {
    engine: 'gemini',
    issue: 11,
    skip: missing('gemini') ?? why,
    agent: () => [geminiBin!],
    env: (url: string) => ({
      GEMINI_API_KEY: 'scripted-gemini-key',
      GOOGLE_GEMINI_BASE_URL: url,
      GEMINI_MODEL,
    }),
    said: (b: Record<string, unknown> | undefined) => JSON.stringify(b?.contents),
  },
  {
    engine: 'copilot',
    issue: 12,
    skip: missing('copilot') ?? why,
    agent: () => [copilotBin!, '--allow-all'],
    env: (url: string) => ({
      COPILOT_PROVIDER_TYPE: 'anthropic',
      COPILOT_PROVIDER_BASE_URL: url,
      COPILOT_PROVIDER_API_KEY: 'scripted-copilot-key',
      COPILOT_MODEL: 'claude-sonnet-4.5',
    }),
    said: (b: Record<string, unknown> | undefined) => JSON.stringify(b?.messages),
  },
];
for (const e of MORE)
  describe.skipIf(!!e.skip)(`a ${e.engine} session across workflow runs`, () => {
    it("a later workflow run's node restores the session from the Actions cache and resumes it", async () => {
      cache = await startCacheServer();
      github = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }], likeGitHub: ORDER_CLOCK });
      model = await startModelServer({ script: [{ text: 'PLAN-ANSWER noted.' }, { text: 'BUILD-ANSWER' }] });
      const ws = makeWorkspace({
        '.github/interlock.yml': routeLabel('agent:s', GRAPH_FILE),
        [GRAPH_FILE]: graph(e.agent().map(shellWord).join(' '), e.engine),
      });
      github.state.repo(FULL).addIssue({ number: e.issue, title: 'sessions', labels: ['agent:s'] });
      const env = { ...e.env(model.url), ...cache.env() };
      let log = '';
      for (const node of ['plan', 'build']) {
        const step = await runStep(issueStep(github, ws, e.issue, 'agent:s', { inputs: { node }, env }));
        expect(step.outputs.status, step.log.slice(-2500)).toBe('completed');
        log = step.log;
      }
      const j = readJournal(github, `sessions/issue-${e.issue}`);
      const plan = eventsOf(j, 'NodeRecorded', 'plan')[0]!;
      const build = eventsOf(j, 'NodeRecorded', 'build')[0]!;
      expect(build.resumed_session).toBe(plan.session_id);
      expect(build.session_id).toBe(plan.session_id);
      expect(log).toContain(`restored session ${plan.session_id} from the Actions cache`);
      expect(e.said(model.calls[1]?.body)).toContain('PLAN-PROMPT');
      expect(
        cache.entries.some((x) => x.finalized && x.key.endsWith(`-work-${e.engine}-${plan.session_id}`)),
      ).toBe(true);
    }, 240_000);
  });
