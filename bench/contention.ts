// Parallel jobs appending to one journal on the local GitHub server, and the bytes each write sends.
import { createClient } from '../src/github/client.js';
import { parseGraph } from '../src/graph/load/load.js';
import type { Graph } from '../src/graph/model.js';
import { JOURNAL_FORMAT, type Journal, type NewEvent } from '../src/journal/events/events.js';
import type { RunnerInfo } from '../src/journal/events/fields.js';
import { appendEvents, serializeJournal } from '../src/journal/parse.js';
import { decideNext, decideResult } from '../src/protocol/decide.js';
import { runOf } from '../src/protocol/run.js';
import { commit } from '../src/runner/journal-io/commit.js';
import type { RunSetup } from '../src/runner/journal-io/read.js';
import { GitStore } from '../src/store/git.js';
import { startGitHubServer } from '../test/support/github-server.js';
import { journalText } from '../test/support/journal-text.js';

function graphOf(n: number): Graph {
  const nodes = Array.from(
    { length: n },
    (_, i) => `  - id: job${i}\n    run: echo ${i}\n    replay: safe\n`,
  ).join('');
  return parseGraph({ path: 'g.yml', text: `interlock: 1\nname: contention\nnodes:\n${nodes}` });
}

export interface ContentionRow {
  jobs: number;
  events: number;
  lost: number;
  doubleDispatched: number;
  requestsPerEvent: number;
  conflicts: number;
  p50_ms: number;
  p99_ms: number;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** `jobs` jobs at once, each dispatching then recording its own node through the git store's compare-and-swap. */
export async function contention(jobs: number): Promise<ContentionRow> {
  const server = await startGitHubServer({ repos: [{ owner: 'acme', name: 'widgets' }] });
  try {
    const graph = graphOf(jobs);
    const runId = `contention/${jobs}`;
    const latencies: number[] = [];
    let conflicts = 0;
    const mark = server.requests.mark();
    await Promise.all(
      graph.nodes.map(async (node, i) => {
        const octokit = createClient({
          token: 'bench',
          baseUrl: server.url,
          writeIntervalMs: 0,
          retryAfterBaseValue: 5,
        });
        const setup: RunSetup = {
          graph,
          store: new GitStore(octokit, { owner: 'acme', repo: 'widgets' }, runId),
          runId,
          start: { intent: 'bench', subject: 'local', inputs: {}, github: null },
        };
        const runner: RunnerInfo = {
          kind: 'actions',
          workflow_run_id: 1,
          run_attempt: 1,
          job: 'matrix',
          runner_name: `runner-${i}`,
        };
        let t = performance.now();
        const d = await commit(
          setup,
          runner,
          (cur) => {
            const decision = decideNext(runOf(graph, cur.journal, cur.state), { runner, only: node.id });
            return { events: decision.kind === 'dispatch' ? decision.events : ([] as NewEvent[]) };
          },
          { create: true },
        );
        latencies.push(performance.now() - t);
        conflicts += d.conflicts;
        t = performance.now();
        const r = await commit(
          setup,
          runner,
          (cur) =>
            decideResult(runOf(graph, cur.journal, cur.state), {
              node: node.id,
              attempt: 1,
              outcome: {
                failures: [],
                evidence: [],
                outputs: {},
                usage: { wall_ms: 1 },
              },
            }),
          { known: d.cur },
        );
        latencies.push(performance.now() - t);
        conflicts += r.conflicts;
      }),
    );
    const text = journalText(server.state.repo('acme/widgets'), runId) ?? '';
    const journal = JSON.parse(text) as { events: Array<{ type: string; node?: string; seq: number }> };
    const dispatched = new Map<string, number>();
    for (const e of journal.events)
      if (e.type === 'NodeDispatched') dispatched.set(e.node!, (dispatched.get(e.node!) ?? 0) + 1);
    const recorded = journal.events.filter((e) => e.type === 'NodeRecorded').length;
    const appended = journal.events.length - 1; // RunStarted comes with the first write
    return {
      jobs,
      events: journal.events.length,
      lost:
        jobs * 2 - (dispatched.size + recorded) + (journal.events.every((e, k) => e.seq === k + 1) ? 0 : 1),
      doubleDispatched: [...dispatched.values()].filter((n) => n > 1).length,
      requestsPerEvent: server.requests.count({ since: mark }) / appended,
      conflicts,
      p50_ms: pct(latencies, 50),
      p99_ms: pct(latencies, 99),
    };
  } finally {
    await server.close();
  }
}

/** Bytes one write sends as the journal grows: the contents API rewrites the whole file each time. */
export function bytesPerWrite(
  sizes: number[],
): Array<{ events: number; journal_bytes: number; put_bytes: number }> {
  const runner: RunnerInfo = {
    kind: 'actions',
    workflow_run_id: 123456789,
    run_attempt: 1,
    job: 'interlock',
    runner_name: 'GitHub Actions 12',
  };
  return sizes.map((n) => {
    let j: Journal = {
      format: JOURNAL_FORMAT,
      run_id: 'fix-bug/issue-42',
      graph: { name: 'fix-bug', hash: `sha256:${'0'.repeat(64)}`, path: '.github/interlock/fix-bug.yml' },
      events: [],
    };
    const events: NewEvent[] = [
      {
        type: 'RunStarted',
        graph: j.graph,
        intent: 'issues.labeled',
        subject: 'issue-42',
        runner,
        inputs: {},
      },
    ];
    for (let i = 1; events.length < n; i++) {
      const node = `node${i}`;
      events.push({ type: 'NodeDispatched', node, attempt: 1, replay: 'never', approach: 'default', runner });
      events.push({
        type: 'NodeRecorded',
        node,
        attempt: 1,
        evidence: [{ check: `file out/${i}.txt`, passed: true, observed: `out/${i}.txt exists (120 bytes)` }],
        outputs: {},
        usage: { wall_ms: 1234 },
      });
    }
    j = appendEvents(j, events.slice(0, n), '2026-11-29T12:00:00.000Z');
    const bytes = Buffer.byteLength(serializeJournal(j));
    return { events: n, journal_bytes: bytes, put_bytes: Math.ceil(bytes / 3) * 4 };
  });
}
