import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { type FaultRule, type GitHubServer, startGitHubServer } from '../support/github-server.js';
import {
  COMMENT,
  CONTENTS,
  CONTENTS_GET,
  CONTENTS_PUT,
  endWorkflowRun,
  eventsOf,
  FULL,
  issueStep,
  journalText,
  OWNER,
  REPO,
  readJournal,
  routeLabel,
  validJournal,
} from './world.js';

// One run, one node a step: each fault strikes the step that runs the next node.
// More nodes than steps: the run never completes under the cases.
const NODES = ['prep', ...Array.from({ length: 16 }, (_, i) => `s${i + 1}`)];
const GRAPH = `interlock: 1
name: faults
nodes:
${NODES.map(
  (id, i) => `  - id: ${id}
${i ? `    depends_on: [${NODES[i - 1]}]\n` : ''}    run: echo "$INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> effects.log
`,
).join('')}`;
const RUN = 'faults/issue-31';
const GRAPH_FILE = '.github/interlock/faults.yml';

let server: GitHubServer;
const ws = makeWorkspace({
  '.github/interlock.yml': routeLabel('agent:faults', GRAPH_FILE),
  [GRAPH_FILE]: GRAPH,
});

beforeAll(async () => {
  server = await startGitHubServer({
    // Each fault strikes the n-th request of a kind: the like-GitHub model's stale reads and raced writes would
    // add requests and move it. The model with faults is the fault suite's (test/reliability/api-faults*).
    likeGitHub: false,
    repos: [{ owner: OWNER, name: REPO }],
  });
  server.state.repo(FULL).addIssue({ number: 31, title: 'Faults', labels: ['agent:faults'] });
  const r = await runStep(issueStep(server, ws, 31, 'agent:faults'));
  if (r.outputs.status !== 'completed') throw new Error(`the first step failed: ${r.stdout}`);
});
afterAll(async () => server?.close());

function sideEffects(node: string): number {
  return readFileSync(join(ws, 'effects.log'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith(`${node} `)).length;
}

const DISPATCH_PUT = { method: 'PUT', path: CONTENTS, nth: 1 } as const;
const RECORD_PUT = { method: 'PUT', path: CONTENTS, nth: 2 } as const;
const JOURNAL_GET = { method: 'GET', path: CONTENTS, nth: 1 } as const;
const COMMENT_UPDATE = { method: 'PATCH', path: COMMENT, nth: 1 } as const;

interface Case {
  name: string;
  rule: FaultRule;
  /** Statuses of this step's journal writes, in order (0: the connection was dropped). */
  puts: number[];
  /** This step's journal reads. */
  reads: number;
  env?: Record<string, string>;
}

const CASES: Case[] = [
  {
    name: 'a 409 conflict on the dispatch write is re-read and decided again',
    rule: { ...DISPATCH_PUT, fault: { kind: 'status', status: 409 } },
    puts: [409, 200, 200],
    reads: 2,
  },
  {
    name: 'a 409 conflict on the record write is re-read and decided again',
    rule: { ...RECORD_PUT, fault: { kind: 'status', status: 409 } },
    puts: [200, 409, 200],
    reads: 2,
  },
  {
    name: 'a 500 on the journal read is retried',
    rule: { ...JOURNAL_GET, fault: { kind: 'status', status: 500 } },
    puts: [200, 200],
    reads: 2,
  },
  {
    name: 'a 502 on the dispatch write is retried',
    rule: { ...DISPATCH_PUT, fault: { kind: 'status', status: 502 } },
    puts: [502, 200, 200],
    reads: 1,
  },
  {
    name: 'a dropped connection on the record write is retried',
    rule: { ...RECORD_PUT, fault: { kind: 'drop' } },
    puts: [200, 0, 200],
    reads: 1,
  },
  {
    name: 'a dropped connection on the journal read is retried',
    rule: { ...JOURNAL_GET, fault: { kind: 'drop' } },
    puts: [200, 200],
    reads: 2,
  },
  {
    // The retry names the sha the lost write replaced: 409; the re-read finds the write there, and it is ours.
    name: 'a 502 after the dispatch write landed is recognised as ours, not dispatched again',
    rule: { ...DISPATCH_PUT, when: 'after', fault: { kind: 'status', status: 502 } },
    puts: [502, 409, 200],
    reads: 2,
  },
  {
    name: 'a 502 after the record write landed is recognised as ours, not recorded again',
    rule: { ...RECORD_PUT, when: 'after', fault: { kind: 'status', status: 502 } },
    puts: [200, 502, 409],
    reads: 2,
  },
  {
    name: 'a connection dropped after the dispatch write landed is recognised as ours',
    rule: { ...DISPATCH_PUT, when: 'after', fault: { kind: 'drop' } },
    puts: [0, 409, 200],
    reads: 2,
  },
  {
    name: 'a 403 secondary rate limit on the dispatch write waits its retry-after, then writes',
    rule: { ...DISPATCH_PUT, fault: { kind: 'secondary-rate-limit', retryAfter: 3 } },
    puts: [403, 200, 200],
    reads: 1,
    // retry-after 3 (seconds) waits 3 × 100 ms here.
    env: { INTERLOCK_RETRY_BASE_MS: '100' },
  },
  {
    name: 'a 500 on the progress comment update is retried',
    rule: { ...COMMENT_UPDATE, fault: { kind: 'status', status: 500 } },
    puts: [200, 200],
    reads: 1,
  },
  {
    name: 'a 403 secondary rate limit on the progress comment update is retried after retry-after',
    rule: { ...COMMENT_UPDATE, fault: { kind: 'secondary-rate-limit', retryAfter: 1 } },
    puts: [200, 200],
    reads: 1,
  },
];

describe('faults in the middle of a step lose nothing and dispatch nothing twice', () => {
  it.each(CASES)('$name', async (c) => {
    const start = readJournal(server, RUN);
    const before = start.events.length;
    const node = validJournal(start, join(ws, GRAPH_FILE)).checkpoint.ready_nodes[0]!;
    const fault = server.faults.inject(c.rule);
    const mark = server.requests.mark();
    const r = await runStep(issueStep(server, ws, 31, 'agent:faults', c.env ? { env: c.env } : {}));
    fault.remove();
    expect(fault.fired).toBe(1);
    expect(r.code, r.stdout).toBe(0);
    expect(r.outputs).toMatchObject({ node: node, attempt: '1', status: 'completed' });

    const journal = readJournal(server, RUN);
    validJournal(journal, join(ws, GRAPH_FILE));
    expect(journal.events.slice(before).map((e) => `${e.type} ${'node' in e ? e.node : ''}`)).toEqual([
      `NodeDispatched ${node}`,
      `NodeRecorded ${node}`,
    ]);
    expect(eventsOf(journal, 'NodeInterrupted')).toEqual([]);
    expect(sideEffects(node)).toBe(1);

    const puts = server.requests.filter({ since: mark, kind: CONTENTS_PUT });
    expect(puts.map((p) => p.status)).toEqual(c.puts);
    expect(server.requests.count({ since: mark, kind: CONTENTS_GET })).toBe(c.reads);
    if (c.rule.fault.kind === 'secondary-rate-limit' && c.rule.path === CONTENTS) {
      expect(puts[1]!.at - puts[0]!.at).toBeGreaterThanOrEqual(290);
    }
    // The progress comment was updated in place, whatever struck it.
    const progress = server.state
      .repo(FULL)
      .commentsOn(31)
      .filter((m) => m.body.includes(`<!-- interlock:progress ${RUN} -->`));
    expect(progress).toHaveLength(1);
    expect(progress[0]!.body).toContain(node);
  });
});

describe('when retries run out', () => {
  let failedJob = 0;
  it('a journal store failing on every write fails the step, says what state the run was left in, and leaves the journal valid', async () => {
    const before = journalText(server, RUN);
    const node = validJournal(readJournal(server, RUN), join(ws, GRAPH_FILE)).checkpoint.ready_nodes[0]!;
    // The dispatch lands; then GitHub answers nothing but 502 to every write.
    const fault = server.faults.inject({
      method: 'PUT',
      path: CONTENTS,
      nth: 2,
      every: true,
      fault: { kind: 'status', status: 502 },
    });
    const mark = server.requests.mark();
    const started = Date.now();
    const opts = issueStep(server, ws, 31, 'agent:faults');
    failedJob = opts.job.runId;
    const r = await runStep(opts);
    fault.remove();
    expect(r.code).toBe(1);
    const error = r.stdout.split('\n').find((l) => l.startsWith('::error::'));
    expect(error).toContain(`"${node}" attempt 1 ran`);
    expect(error).toContain('could not be stored');
    expect(error).toContain('in flight');
    expect(error).toContain('held');
    // Bounded: a GitHub that keeps failing gets a few tries, not a flood.
    expect(server.requests.count({ since: mark, kind: CONTENTS_PUT })).toBeLessThanOrEqual(20);
    expect(Date.now() - started).toBeLessThan(20_000);

    const journal = readJournal(server, RUN);
    const state = validJournal(journal, join(ws, GRAPH_FILE));
    expect(journal.events.length).toBe(JSON.parse(before!).events.length + 1);
    expect(state.checkpoint.active_nodes).toEqual([node]);
    expect(sideEffects(node)).toBe(1);
  });

  it('a journal that cannot be read fails the step before anything runs, and says so', async () => {
    const before = journalText(server, RUN);
    const fault = server.faults.inject({
      method: 'GET',
      path: CONTENTS,
      every: true,
      fault: { kind: 'status', status: 503 },
    });
    const r = await runStep(issueStep(server, ws, 31, 'agent:faults'));
    fault.remove();
    expect(r.code).toBe(1);
    const error = r.stdout.split('\n').find((l) => l.startsWith('::error::'));
    expect(error).toContain('no node ran');
    expect(journalText(server, RUN)).toBe(before);
  });

  it('a progress comment that cannot be updated is a warning: the journal is written and the step succeeds', async () => {
    const fault = server.faults.inject({
      method: 'PATCH',
      path: COMMENT,
      every: true,
      fault: { kind: 'status', status: 502 },
    });
    // The node left in flight above was dispatched by a job that has ended since: recovery holds it.
    endWorkflowRun(server.state.repo(FULL), failedJob);
    const r = await runStep(issueStep(server, ws, 31, 'agent:faults', { inputs: { 'on-held': 'succeed' } }));
    fault.remove();
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('::warning::interlock could not update issue #31');
    expect(r.outputs.status).toBe('held');
  });
});
