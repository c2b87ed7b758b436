/**
 * Runs started at once (issue 35): a triage bot labels N issues together, and N workflow runs each run one job,
 * `node: all` over three nodes, through the bundled Action against the local GitHub as GitHub is under load (the
 * like-GitHub model: contents writes racing per branch, stale reads by branch name, secondary limits). Every run
 * must complete, each node recorded once and run once. With one journal branch for all runs, 4 of 10 completed.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStep, worldLog } from '../support/action-process.js';
import { issuesLabeled } from '../support/fixtures.js';
import { FULL, OWNER, REPO, startActionWorld, workspace } from './github-world.js';
import { checkRace } from './races.js';
import { killTagged, Problems } from './support.js';

const CONTENTS_PUT = 'PUT /repos/{owner}/{repo}/contents/{path}';
const CREATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const NODES = ['a', 'b', 'c'];

const GRAPH = `interlock: 1
name: triage
nodes:
  - id: a
    replay: never
    run: echo "$RUN_TAG a $INTERLOCK_ATTEMPT" >> "$SHARED"
  - id: b
    replay: never
    depends_on: [a]
    run: echo "$RUN_TAG b $INTERLOCK_ATTEMPT" >> "$SHARED"
  - id: c
    replay: never
    depends_on: [b]
    run: echo "$RUN_TAG c $INTERLOCK_ATTEMPT" >> "$SHARED"
`;

export interface RunsRaceResult {
  runs: number;
  completed: number;
  failedSteps: number;
  lost: number;
  doubleDispatched: number;
  requests: number;
  /** Requests that create content (POST, PUT, PATCH, DELETE), GitHub's secondary-limit count. */
  creating: number;
  /** Journal writes refused (409/422): each run's own, as no run writes another's branch. */
  conflicts: number;
  /** Reads the model answered from the past (server-side count). */
  staleAnswers: number;
  ms: number;
  problems: string[];
}

export async function runsAtOnce(n: number): Promise<RunsRaceResult> {
  const path = '.github/interlock/triage.yml';
  // The model whole, the secondary limit included: ten runs at once are one repository's minute.
  const world = await startActionWorld({ files: { [path]: GRAPH }, likeGitHub: {} });
  const root = mkdtempSync(join(tmpdir(), 'interlock-race-runs-'));
  const tag = randomUUID();
  const p = new Problems();
  try {
    const log = worldLog();
    const issues = Array.from({ length: n }, (_, i) => world.issue(`triage ${i + 1}`));
    const stale0 = world.server.model.stats.staleAnswers;
    const mark = world.server.requests.mark();
    const t0 = Date.now();
    const steps = await Promise.all(
      issues.map((issue, i) => {
        const runId = 90_000 + i;
        world.repo.addWorkflowRun({
          workflow: 'interlock.yml',
          id: runId,
          event: 'issues',
          status: 'in_progress',
          jobs: [{ name: 'run', runner_name: `runner-${i + 1}`, status: 'in_progress' }],
        });
        return startStep({
          apiUrl: world.server.url,
          repository: FULL,
          workspace: workspace(root, { [path]: GRAPH }),
          eventName: 'issues',
          payload: issuesLabeled(OWNER, REPO, issue, 'interlock', 'triage'),
          inputs: { graph: path, node: 'all' },
          job: { runId, attempt: 1, job: 'run', runner: `runner-${i + 1}` },
          env: { INTERLOCK_TEST_TAG: tag, TMPDIR: root, SHARED: log, RUN_TAG: `r${issue}` },
        }).done;
      }),
    );
    const ms = Date.now() - t0;
    const requests = world.server.requests.filter({ since: mark });
    const effects = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
    let lost = 0;
    let doubleDispatched = 0;
    let completed = 0;
    for (const [i, issue] of issues.entries()) {
      const r = steps[i]!;
      const errors = r.stdout
        .split('\n')
        .filter((l) => l.startsWith('::error'))
        .join(' | ');
      p.check(r.code === 0, `the run of issue ${issue} exited ${r.code}: ${errors}`);
      if (r.code === 0 && r.outputs.status === 'completed') completed++;
      const mine = effects.filter((l) => l.startsWith(`r${issue} `)).map((l) => l.slice(`r${issue} `.length));
      const c = checkRace(p, world.journalText(`triage/issue-${issue}`), GRAPH, NODES, mine);
      lost += c.lost;
      doubleDispatched += c.doubleDispatched;
    }
    return {
      runs: n,
      completed,
      failedSteps: steps.filter((r) => r.code !== 0).length,
      lost,
      doubleDispatched,
      requests: requests.length,
      creating: requests.filter((q) => CREATING.has(q.method)).length,
      conflicts: requests.filter((q) => q.kind === CONTENTS_PUT && (q.status === 409 || q.status === 422))
        .length,
      staleAnswers: world.server.model.stats.staleAnswers - stale0,
      ms,
      problems: p.list,
    };
  } finally {
    await killTagged(tag);
    await world.close();
    rmSync(root, { recursive: true, force: true });
  }
}
