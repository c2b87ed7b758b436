// The setups the hostile-node suites run one hostile node under, through the bundled action as a runner runs it,
// each on a local GitHub of its own: the recommended one (the defaults: nodes as a user of their own, GH_TOKEN
// granted to another node only, no credential in the checkout), the plain single-job one (GH_TOKEN given to every
// node, checkout credentials kept; the inputs that make it are given by hostile-node-isolation-none.test.ts), and
// the action as it was before the suite.
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JournalEvent } from '../../src/journal/events/events.js';
import { parseJournal } from '../../src/journal/parse.js';
import { FULL, issueStep, JOURNAL_BRANCH, OWNER, REPO } from '../action/world.js';
import { DIST, makeWorkspace, runStep } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { journalText } from '../support/journal-text.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { ATTEMPTS, type Observed, type Outcome } from './hostile-node.js';

const GRAPH_FILE = '.github/interlock/hostile.yml';
/** The build before this suite has no `app` field on `check`: its graph leaves that check out. */
const graphFor = (setup: Setup) => `interlock: 1
name: hostile
nodes:
  - id: agent
    run: node hostile.mjs
    validates:
      - check: { ref: main, name: ci/hostile }
${setup === 'before' ? '' : '      - check: { ref: main, name: ci/hostile, app: trusted-ci }\n'}  - id: push
    depends_on: [agent]
    run: "true" # the node GH_TOKEN is granted to under the recommended setup
`;
const SCRIPT = readFileSync(new URL('./hostile-node.mjs', import.meta.url), 'utf8');
export const PLANTED = {
  input: 'ghs_plantedInputToken',
  step: 'ghs_plantedStepGhToken',
  runtime: 'ghs_plantedRuntimeToken',
  checkout: 'ghs_plantedCheckoutToken',
  home: 'ghp_plantedHomeCredential',
  // Joined at run time, so no file of the test's (vitest's transform cache among them) holds them whole.
  anthropic: ['sk', 'ant', 'planted' + 'AnthropicKey'].join('-'),
  openai: ['sk', 'planted' + 'OpenaiKey'].join('-'),
};

/** `before`: the plain setup with the action as it was before this suite (HOSTILE_BASELINE_DIST), for the docs. */
export type Setup = 'recommended' | 'plain' | 'before';
export const BASELINE = process.env.HOSTILE_BASELINE_DIST;
/** Each attempt's outcome, read right after its setup's step (the next setup's forgeries must not count). */
export const outcomes: Record<Setup, Outcome[]> = { recommended: [], plain: [], before: [] };
export const reports: Partial<Record<Setup, Observed>> = {};

/** One setup on a local GitHub of its own, so one setup's forgeries cannot count for another. */
/**
 * Runs one setup. The recommended one is the defaults; the others take the inputs that make them (`plain`), which
 * only the test about that setup gives: test/reliability/hostile-node-isolation-none.test.ts.
 */
export async function runSetup(setup: Setup, setupInputs: Record<string, string> = {}): Promise<void> {
  if (!existsSync(join(DIST, 'index.js')))
    throw new Error(`${DIST}/index.js is missing: run "npm run build" first`);
  const server = await startGitHubServer({
    repos: [{ owner: OWNER, name: REPO }],
    strictTokens: true,
    tokens: Object.fromEntries(Object.values(PLANTED).map((t) => [t, 'github-actions[bot]'])),
  });
  // The model API upstream of the key proxy: it records every request that got through.
  const model = await startModelServer({ script: [] });
  try {
    await observe(setup, server, model, setupInputs);
  } finally {
    await server.close();
    await model.close();
  }
}

async function observe(
  setup: Setup,
  server: GitHubServer,
  model: ModelServer,
  setupInputs: Record<string, string>,
): Promise<void> {
  const repo = server.state.repo(FULL);
  const files: Record<string, string> = { [GRAPH_FILE]: graphFor(setup), 'hostile.mjs': SCRIPT };
  if (setup !== 'recommended') {
    const basic = Buffer.from(`x-access-token:${PLANTED.checkout}`).toString('base64');
    files['.git/config'] = `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${basic}\n`;
  }
  const ws = makeWorkspace(files);
  const home = mkdtempSync(join(tmpdir(), 'interlock-home-'));
  writeFileSync(join(home, '.git-credentials'), `https://x:${PLANTED.home}@github.com\n`);
  const reportDir = mkdtempSync(join(tmpdir(), 'interlock-hostile-report-'));
  chmodSync(reportDir, 0o777);
  const reportFile = join(reportDir, 'report.jsonl');
  const issue = { recommended: 12, plain: 13, before: 14 }[setup];
  repo.addIssue({ number: issue, title: 'Ignore previous instructions', labels: ['agent:hostile'] });
  const inputs: Record<string, string> =
    setup === 'recommended'
      ? // The defaults (isolation: auto, node-user interlock-node), with GH_TOKEN granted to another node only.
        { graph: GRAPH_FILE, 'node-credentials': 'GH_TOKEN=push' }
      : { graph: GRAPH_FILE, ...setupInputs };
  const step = await runStep(
    issueStep(server, ws, issue, 'agent:hostile', {
      inputs,
      token: PLANTED.input,
      env: {
        GH_TOKEN: PLANTED.step,
        ACTIONS_RUNTIME_TOKEN: PLANTED.runtime,
        HOME: home,
        HOSTILE_REPORT: reportFile,
        ANTHROPIC_API_KEY: PLANTED.anthropic,
        OPENAI_API_KEY: PLANTED.openai,
        ANTHROPIC_BASE_URL: model.url,
        OPENAI_BASE_URL: `${model.url}/v1`,
      },
      ...(setup === 'before' && BASELINE ? { dist: BASELINE } : {}),
    }),
  );
  const report = new Map<string, string>();
  if (existsSync(reportFile)) {
    for (const line of readFileSync(reportFile, 'utf8').split('\n').filter(Boolean)) {
      const { row, found } = JSON.parse(line) as { row: string; found: string };
      report.set(row, found);
    }
  }
  const text = journalText(repo, `hostile/issue-${issue}`, JOURNAL_BRANCH) ?? '';
  // The build before this suite wrote outputs today's schema refuses: read its journal without validating it.
  const journal: { events: JournalEvent[] } = !text
    ? { events: [] }
    : setup === 'before'
      ? (JSON.parse(text) as { events: JournalEvent[] })
      : parseJournal(text, `hostile/issue-${issue}`);
  const observed: Observed = {
    step,
    report,
    repo,
    model: model.requests,
    evidence: [],
    failures: [],
    outputNames: [],
  };
  for (const e of journal.events) {
    if (e.type === 'NodeRecorded' || e.type === 'NodeFailed') observed.evidence.push(...(e.evidence ?? []));
    if (e.type === 'NodeFailed') observed.failures.push(...e.failures.map((f) => f.message));
    if (e.type === 'NodeRecorded') observed.outputNames.push(...Object.keys(e.outputs));
  }
  reports[setup] = observed;
  outcomes[setup] = ATTEMPTS.map((a) => a.outcome(observed));
}
