/**
 * The race on the check-run store: many bundled Action steps (`store: check-run`, `node: all`) on one run of one
 * pull request at once, against the local GitHub. GitHub has no compare-and-swap on check runs, so updates can be
 * lost; what must hold is that none is lost silently: every node whose effect ran twice, or ran with its record
 * missing, is matched by a step that failed saying "a lost update", and the run can still be finished.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseGraph } from '../../src/graph/load/load.js';
import { fold } from '../../src/journal/fold.js';
import { decodeJournal } from '../../src/store/check-run.js';
import {
  runStep,
  type StepOptions,
  type StepResult,
  startStep,
  worldLog,
} from '../support/action-process.js';
import { webhookExample } from '../support/fixtures.js';
import type { LikeGitHubOptions } from '../support/github-server.js';
import { FULL, OWNER, REPO, startActionWorld, workspace } from './github-world.js';
import { raceGraph } from './races.js';
import { killTagged, Problems } from './support.js';

const CHECK_RUNS_GET = 'GET /repos/{owner}/{repo}/commits/{ref}/check-runs';
const CHECK_RUN_WRITES = [
  'POST /repos/{owner}/{repo}/check-runs',
  'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}',
];
const PULL = 500;

export interface CheckRunRaceResult {
  writers: number;
  nodes: number;
  events: number;
  /** Nodes whose side effect ran more than once (a `never` node run twice). */
  ranTwice: number;
  /** Dispatches that ran a node but are missing from the journal (overwritten by another writer). */
  lostDispatches: number;
  /** Nodes that ran but have no NodeRecorded after the race (the record overwritten, or never stored). */
  unrecorded: number;
  /** Steps that failed saying they met a lost update. */
  detected: number;
  /** Steps that failed for any other reason. */
  otherFailures: number;
  writes: number;
  reads: number;
  /** The run's status after the race's jobs ended and one more step ran: completed, or held for a person. */
  finishedAs: string;
  ms: number;
  problems: string[];
}

/** A `pull_request.synchronize`-free `opened` payload for the race's pull request. */
function pullPayload(head: string): Record<string, unknown> {
  const p = webhookExample('pull_request', 'opened') as Record<string, unknown> & {
    pull_request: Record<string, unknown> & { head: Record<string, unknown>; base: Record<string, unknown> };
    repository: Record<string, unknown> & { owner: Record<string, unknown> };
  };
  p.number = PULL;
  p.pull_request = {
    ...p.pull_request,
    number: PULL,
    head: { ...p.pull_request.head, ref: 'race', sha: head },
    base: { ...p.pull_request.base, ref: 'main' },
  };
  p.repository = {
    ...p.repository,
    name: REPO,
    full_name: FULL,
    owner: { ...p.repository.owner, login: OWNER },
  };
  return p;
}

const said = (r: StepResult, what: string) => r.stdout.includes(what);

/**
 * `writers` Action steps on one check-run journal at once; then one more step, after their jobs ended. `likeGitHub`
 * is the local GitHub's model (default the world's: GITHUB_CLOCK, test/support/clock.ts).
 */
export async function checkRunStoreRace(
  writers: number,
  nodes = writers,
  likeGitHub?: LikeGitHubOptions,
): Promise<CheckRunRaceResult> {
  const graph = raceGraph('race', nodes);
  const path = '.github/interlock/race.yml';
  const world = await startActionWorld({ files: { [path]: graph }, ...(likeGitHub ? { likeGitHub } : {}) });
  const root = mkdtempSync(join(tmpdir(), 'interlock-race-check-run-'));
  const tag = randomUUID();
  const p = new Problems();
  try {
    world.repo.commitFiles('race', { 'race.txt': 'race\n' });
    world.repo.addPull({ number: PULL, head: 'race', base: 'main', title: 'Race' });
    const head = world.repo.branchSha('race')!;
    // Each job has a checkout of its own, as on GitHub; the nodes' side effects land outside them.
    const log = worldLog();
    const step = (job = world.job()): StepOptions => ({
      apiUrl: world.server.url,
      repository: FULL,
      workspace: workspace(root, { [path]: graph }),
      eventName: 'pull_request',
      payload: pullPayload(head),
      inputs: { graph: path, node: 'all', store: 'check-run' },
      env: { INTERLOCK_TEST_TAG: tag, TMPDIR: root, SHARED: log },
      job,
    });
    const jobs = Array.from({ length: writers }, () => world.job());
    const mark = world.server.requests.mark();
    const t0 = Date.now();
    const steps = await Promise.all(jobs.map((j) => startStep(step(j)).done));
    const ms = Date.now() - t0;
    const lostUpdate = steps.filter((r) => r.code !== 0 && said(r, 'a lost update'));
    const other = steps.filter((r) => r.code !== 0 && !said(r, 'a lost update'));
    for (const f of other)
      p.add(
        `a step failed for another reason: ${f.stdout
          .split('\n')
          .filter((l) => l.startsWith('::error'))
          .join(' | ')}`,
      );
    for (const f of lostUpdate)
      p.check(f.outputs.status === 'failed', `a step that met a lost update says status=${f.outputs.status}`);

    const journalNow = () => {
      // Writers that started together may each have created one: GitHub shows (and the store reads) the newest.
      const run = [...world.repo.checkRuns.values()]
        .filter((c) => c.name === `interlock: race/pr-${PULL}`)
        .sort((a, b) => b.id - a.id)[0];
      return decodeJournal(run?.output.text ?? '', 'race journal');
    };
    const journal = journalNow();
    const ids = [...Array.from({ length: nodes }, (_, i) => `w${i + 1}`), 'join'];
    const effects = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    const count = (type: string, n: string) =>
      journal.events.filter((e) => e.type === type && 'node' in e && e.node === n).length;
    let ranTwice = 0;
    let lostDispatches = 0;
    let unrecorded = 0;
    // Never silent: a node run twice, or with its dispatch or record missing, is named by a step that failed
    // saying it met a lost update (the message lists the events lost, `NodeDispatched w3#1 (seq 4)`).
    const named = (n: string) => lostUpdate.some((r) => r.stdout.includes(` ${n}#`));
    for (const n of ids) {
      const ran = effects.filter((l) => l.split(' ')[0] === n).length;
      const lost = Math.max(0, ran - count('NodeDispatched', n));
      const missing = ran > 0 && count('NodeRecorded', n) === 0;
      if (ran > 1) ranTwice++;
      lostDispatches += lost;
      if (missing) unrecorded++;
      if (ran > 1 || lost || missing)
        p.check(
          named(n),
          `silent: node ${n} ran ${ran} time(s), its record ${missing ? 'missing' : 'kept'}, and no step named it`,
        );
    }

    // The run can be finished: the race's jobs end, one more step recovers and runs what is left. A `never` node
    // whose attempt is unknown is held for a person (`/approve-rerun`, `/settle`): that step fails by default.
    for (const j of jobs) world.endJob(j.runId);
    const last = await runStep(step());
    const state = fold(journalNow(), parseGraph({ path: 'g.yml', text: graph })).checkpoint.status;
    p.check(
      (last.code === 0 && state === 'completed') || last.outputs.status === 'held',
      `after the race the run could not be finished: step exited ${last.code}, status ${last.outputs.status}, run ${state}`,
    );
    return {
      writers,
      nodes: ids.length,
      events: journal.events.length,
      ranTwice,
      lostDispatches,
      unrecorded,
      detected: lostUpdate.length,
      otherFailures: other.length,
      writes: CHECK_RUN_WRITES.reduce((a, kind) => a + world.server.requests.count({ since: mark, kind }), 0),
      reads: world.server.requests.count({ since: mark, kind: CHECK_RUNS_GET }),
      finishedAs: state === 'completed' ? 'completed' : `${last.outputs.status} (waits for a person)`,
      ms,
      problems: p.list,
    };
  } finally {
    await killTagged(tag);
    await world.close();
    rmSync(root, { recursive: true, force: true });
  }
}
