// interlock is nobody's deputy (issue 34): through the bundled action under the default isolation, as root and
// through passwordless sudo, with the action's token, a step GH_TOKEN and a model key in the step, each node of one
// graph aims one attempt file at something else (test/reliability/hostile-deputy.ts) and has a `command` check.
// Each row: no secret in the journal, the step log or the step's outputs; no file outside the attempt changed
// owner or mode; the step ends within its time; the node could not replace the file, or its attempt fails naming
// the file and why. Needs root and `npm run build`. HOSTILE_DEPUTY_TABLE_OUT=<file> writes the tables
// (test/docs/deputy-table.test.ts checks docs/RELIABILITY.md holds them).
import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../src/journal/events/events.js';
import { parseJournal } from '../../src/journal/parse.js';
import { FULL, issueStep, JOURNAL_BRANCH, OWNER, REPO, routeLabel } from '../action/world.js';
import { DIST, makeWorkspace, runStepWithin, type StepResult } from '../support/action-process.js';
import { ORDER_CLOCK } from '../support/clock.js';
import { startGitHubServer } from '../support/github-server.js';
import { journalText } from '../support/journal-text.js';
import { giveTo, noSudoRunner, sudoRunner } from '../support/sudo-runner.js';
import {
  CHAIN_AGENT,
  DEPUTY_ROWS,
  deputyGraph,
  deputyTable,
  expected,
  expectedOutcome,
  rowOutcome,
} from './hostile-deputy.js';

const GRAPH_FILE = '.github/interlock/hostile-deputy.yml';
const SECRETS = {
  token: 'ghs_deputyActionToken',
  step: 'ghs_deputyStepGhToken',
  npm: 'npm_deputyGrantedToken',
  // Joined at run time, so no file of the test's holds it whole.
  model: ['sk', 'ant', 'deputy' + 'ModelKey'].join('-'),
};
const STEP_LIMIT_MS = 90_000;
const outcomes: { root: string[]; sudo: string[] } = { root: [], sudo: [] };

interface Observed {
  step: StepResult & { timedOut: boolean };
  ms: number;
  journal: string;
  events: JournalEvent[];
  planted: Map<string, boolean>;
  /** Owner and mode of the files outside the attempt that rows aim at, before and after the step. */
  before: string[];
  after: string[];
}

const ownerMode = (p: string) => {
  const st = statSync(p);
  return `${p} ${st.uid}:${st.gid} ${(st.mode & 0o7777).toString(8)}`;
};

async function observe(sudo: boolean, issue: number): Promise<Observed> {
  const server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }], likeGitHub: ORDER_CLOCK });
  try {
    server.state.repo(FULL).addIssue({ number: issue, title: 'Deputy', labels: ['agent:deputy'] });
    const ws = makeWorkspace({
      '.github/interlock.yml': routeLabel('agent:deputy', GRAPH_FILE),
      [GRAPH_FILE]: deputyGraph(),
      'chain-agent.sh': CHAIN_AGENT,
    });
    const targets = mkdtempSync(join(tmpdir(), 'interlock-deputy-targets-'));
    chmodSync(targets, 0o755);
    const rootOnly = join(targets, 'root-only');
    writeFileSync(rootOnly, 'ROOT-ONLY-CONTENT\n', { mode: 0o640 });
    chmodSync(rootOnly, 0o640);
    const bundle = join(DIST, 'index.js');
    const watched = [rootOnly, bundle];
    const reportDir = mkdtempSync(join(tmpdir(), 'interlock-deputy-report-'));
    chmodSync(reportDir, 0o777);
    const report = join(reportDir, 'report');
    let as = {};
    if (sudo) {
      const user = sudoRunner();
      giveTo(ws, user);
      as = { as: { uid: user.uid, gid: user.gid, home: user.home } };
    }
    const before = watched.map(ownerMode);
    const t0 = Date.now();
    const step = await runStepWithin(
      issueStep(server, ws, issue, 'agent:deputy', {
        inputs: { node: 'all', 'node-credentials': 'NPM_TOKEN=leak,leak-fails' },
        token: SECRETS.token,
        env: {
          GH_TOKEN: SECRETS.step,
          NPM_TOKEN: SECRETS.npm,
          ANTHROPIC_API_KEY: SECRETS.model,
          DEPUTY_REPORT: report,
          ROOT_ONLY: rootOnly,
          BUNDLE: bundle,
        },
        ...as,
      }),
      STEP_LIMIT_MS,
    );
    const ms = Date.now() - t0;
    const after = watched.map(ownerMode);
    const journal =
      journalText(server.state.repo(FULL), `hostile-deputy/issue-${issue}`, JOURNAL_BRANCH) ?? '';
    const events = journal ? parseJournal(journal, `hostile-deputy/issue-${issue}`).events : [];
    const planted = new Map<string, boolean>();
    if (existsSync(report))
      for (const line of readFileSync(report, 'utf8').split('\n').filter(Boolean)) {
        const [id, what] = line.split(' ');
        // Any attempt that planted counts.
        planted.set(id!, planted.get(id!) === true || what === 'planted');
      }
    if (process.env.HOSTILE_DEPUTY_LOG) writeFileSync(process.env.HOSTILE_DEPUTY_LOG, step.log);
    return { step, ms, journal, events, planted, before, after };
  } finally {
    await server.close();
  }
}

/** Every failure message recorded for one node. */
const failuresOf = (o: Observed, node: string) =>
  o.events.flatMap((e) =>
    e.type === 'NodeFailed' && e.node === node ? e.failures.map((f) => f.message) : [],
  );

const setups = [
  {
    name: 'as root',
    key: 'root' as const,
    issue: 41,
    skip: process.getuid?.() === 0 ? undefined : 'not root',
  },
  { name: 'through passwordless sudo', key: 'sudo' as const, issue: 42, skip: noSudoRunner() },
];

describe.each(setups)('a node aims an attempt file at something else, $name', ({ key, issue, skip }) => {
  let o: Observed | undefined;
  beforeAll(async () => {
    if (skip) return;
    if (!existsSync(join(DIST, 'index.js'))) throw new Error('run "npm run build" first');
    o = await observe(key === 'sudo', issue);
    outcomes[key] = DEPUTY_ROWS.map((r) =>
      rowOutcome(r, o!.planted.get(r.id) === true, failuresOf(o!, r.id)),
    );
  }, STEP_LIMIT_MS + 30_000);

  it.skipIf(!!skip)('the step ends within its time, and every row ran', () => {
    expect(o!.step.timedOut, o!.step.log.slice(-3000)).toBe(false);
    expect([...o!.planted.keys()].sort()).toEqual(DEPUTY_ROWS.map((r) => r.id).sort());
    expect(o!.ms).toBeLessThan(STEP_LIMIT_MS);
  });
  it.skipIf(!!skip)('no secret of the step in the journal, the step log or the step outputs', () => {
    // The granted node's own live output of its credential is its own (on GitHub the runner masks a secret there).
    // `::add-mask::` lines are the runner's to take (it prints none of them): the step masks what it grants so.
    const log = o!.step.log.replace(/^error: the token is .*$/gm, '').replace(/^::add-mask::.*$/gm, '');
    // The journal was found and holds the run (else this would pass on nothing).
    expect(o!.events.length).toBeGreaterThan(0);
    const seen = [o!.journal, log, JSON.stringify(o!.step.outputs), o!.step.summary].join('\n');
    for (const s of Object.values(SECRETS)) expect(seen).not.toContain(s);
    expect(seen).not.toContain('ROOT-ONLY-CONTENT');
  });
  it.skipIf(!!skip)(
    'a granted secret a node records is removed from the journal, and the step log says where',
    () => {
      const leak = o!.events.filter((e) => 'node' in e && e.node.startsWith('leak'));
      expect(JSON.stringify(leak), o!.step.log.slice(-3000)).toContain('[secret removed]');
      for (const field of ['outputs.npm', 'outputs.npm64'])
        expect(o!.step.log).toContain(`a secret of the step was in NodeRecorded of "leak" (${field})`);
      expect(o!.step.log).toContain(
        'a secret of the step was in NodeFailed of "leak-fails" (failures.0.excerpt)',
      );
    },
  );
  it.skipIf(!!skip)('no file outside the attempt changed owner or mode', () => {
    expect(o!.after).toEqual(o!.before);
  });
  it.skipIf(!!skip).each(DEPUTY_ROWS.map((r) => [r.id, r] as const))('%s: has no effect', (_id, r) => {
    const want = expected(r);
    const failures = failuresOf(o!, r.id);
    expect(o!.planted.get(r.id), o!.step.log.slice(-2000)).toBe(want.planted);
    if (want.failure) expect(failures).toContain(want.failure);
    else expect(failures.filter((f) => f.includes('$INTERLOCK_'))).toEqual([]);
    // The row's words in docs/RELIABILITY.md's table are what this run came to.
    expect(rowOutcome(r, o!.planted.get(r.id) === true, failures)).toBe(expectedOutcome(r));
  });
});

afterAll(() => {
  const out = process.env.HOSTILE_DEPUTY_TABLE_OUT;
  if (!out) return;
  const t = deputyTable(outcomes);
  writeFileSync(out, `${t.files}\n\n${t.outlasting}\n`);
});
