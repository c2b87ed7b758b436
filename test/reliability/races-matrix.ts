/**
 * A matrix fan-out as GitHub runs it, raced for real: a plan job, then one job per node of one workflow run
 * (`node: <name>`, each a child process running the bundled Action with a checkout of its own), all started at
 * once, then the join in a job of its own. Every job is in flight together and each sees the others' nodes in
 * flight: none may be taken for interrupted, none dispatched twice, no event lost.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runStep, type StepOptions, startStep, worldLog } from '../support/action-process.js';
import { issuesLabeled } from '../support/fixtures.js';
import type { LikeGitHubOptions } from '../support/github-server.js';
import { FULL, OWNER, REPO, startActionWorld, workspace } from './github-world.js';
import { checkRace, raceGraph } from './races.js';
import { killTagged, Problems } from './support.js';

const CONTENTS_PUT = 'PUT /repos/{owner}/{repo}/contents/{path}';
const JOBS = 'GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs';
const WORKFLOW_RUN = 77_000;

export interface MatrixRaceResult {
  jobs: number;
  events: number;
  lost: number;
  doubleDispatched: number;
  /** Journal writes refused because the journal had moved on (409/422), re-read and decided again. */
  conflicts: number;
  /** Listings of the run attempt's jobs by the matrix jobs' recovery. */
  jobListings: number;
  /** Requests of the matrix jobs (plan and join apart). */
  requests: number;
  /** Their content-creating requests (POST, PUT, PATCH, DELETE: what the secondary limit counts). */
  writes: number;
  /** What the like-GitHub model did meanwhile: stale answers, raced writes, secondary-limit refusals. */
  model: { staleAnswers: number; racedWrites: number; limited: number };
  /** Wall time of the matrix jobs, ms. */
  ms: number;
  failedSteps: number;
  problems: string[];
}

/**
 * The same race over one `for_each` node's instances (issue 28): the plan expands a list of `jobs` items, one job
 * runs each instance (`node: w[w1]`), and a second plan step joins them before the join node runs.
 */
function forEachRaceGraph(jobs: number): string {
  const keys = Array.from({ length: jobs }, (_, i) => `w${i + 1}`);
  return `interlock: 1
name: race
nodes:
  - id: w
    replay: never
    for_each: \${{ fromJSON('${JSON.stringify(keys)}') }}
    key: \${{ item }}
    max_parallel: ${jobs}
    run: echo "$INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> "$SHARED"
  - id: join
    depends_on: [w]
    run: echo "join $INTERLOCK_ATTEMPT" >> "$SHARED"
`;
}

export async function matrixRace(
  jobs: number,
  opts: { forEach?: boolean; likeGitHub?: LikeGitHubOptions } = {},
): Promise<MatrixRaceResult> {
  const graph = opts.forEach ? forEachRaceGraph(jobs) : raceGraph('race', jobs);
  const path = '.github/interlock/race.yml';
  const world = await startActionWorld({
    files: { [path]: graph },
    ...(opts.likeGitHub ? { likeGitHub: opts.likeGitHub } : {}),
  });
  const root = mkdtempSync(join(tmpdir(), 'interlock-race-matrix-'));
  const tag = randomUUID();
  const p = new Problems();
  try {
    const issue = world.issue('race');
    const nodes = Array.from({ length: jobs }, (_, i) => (opts.forEach ? `w[w${i + 1}]` : `w${i + 1}`));
    world.repo.addWorkflowRun({
      workflow: 'interlock.yml',
      id: WORKFLOW_RUN,
      event: 'issues',
      status: 'in_progress',
      jobs: [
        { name: 'plan', runner_name: 'runner-plan', status: 'completed', conclusion: 'success' },
        ...nodes.map((id, i) => ({
          name: `fanout (${id})`,
          runner_name: `runner-${i + 1}`,
          status: 'in_progress' as const,
        })),
        { name: 'join', runner_name: 'runner-join', status: 'in_progress' },
      ],
    });
    const log = worldLog();
    const job = (key: string, runner: string, inputs: Record<string, string>): StepOptions => ({
      apiUrl: world.server.url,
      repository: FULL,
      workspace: workspace(root, { [path]: graph }),
      eventName: 'issues',
      payload: issuesLabeled(OWNER, REPO, issue, 'interlock', 'race'),
      inputs: { graph: path, ...inputs },
      job: { runId: WORKFLOW_RUN, attempt: 1, job: key, runner },
      // Under the like-GitHub model one run's jobs share the token's 80 content-creating requests a minute: a job
      // refused waits retry-after as GitHub asks (a second a second), not 200 times faster as single steps do.
      env: { INTERLOCK_TEST_TAG: tag, TMPDIR: root, SHARED: log, INTERLOCK_RETRY_BASE_MS: '1000' },
    });
    const plan = await runStep(job('plan', 'runner-plan', { mode: 'plan' }));
    p.check(plan.code === 0, `the plan step exited ${plan.code}: ${plan.stdout.slice(-300)}`);
    p.check(
      JSON.stringify(JSON.parse(plan.outputs.ready ?? '[]')) === JSON.stringify(nodes),
      `plan listed ${plan.outputs.ready} ready, not the ${jobs} nodes`,
    );
    const mark = world.server.requests.mark();
    const before = { ...world.server.model.stats };
    const started = Date.now();
    const steps = await Promise.all(
      nodes.map((id, i) => startStep(job('fanout', `runner-${i + 1}`, { node: id })).done),
    );
    const ms = Date.now() - started;
    const requests = world.server.requests.count({ since: mark });
    const writes = world.server.requests.filter({ since: mark }).filter((r) => r.method !== 'GET').length;
    const after = world.server.model.stats;
    const model = {
      staleAnswers: after.staleAnswers - before.staleAnswers,
      racedWrites: after.racedWrites - before.racedWrites,
      limited: after.limited - before.limited,
    };
    const puts = world.server.requests.filter({ since: mark, kind: CONTENTS_PUT });
    const jobListings = world.server.requests.count({ since: mark, kind: JOBS });
    const failed = steps.filter((r) => r.code !== 0);
    for (const [i, r] of steps.entries()) {
      if (r.code !== 0)
        p.add(
          `${nodes[i]}'s job exited ${r.code}: ${r.stdout
            .split('\n')
            .filter((l) => l.startsWith('::error'))
            .join(' | ')}`,
        );
      else if (r.outputs.status !== 'completed') p.add(`${nodes[i]}'s job ended ${r.outputs.status}`);
    }
    world.repo.updateWorkflowRun(WORKFLOW_RUN, {
      jobs: nodes.map((id) => ({ name: `fanout (${id})`, conclusion: 'success' as const })),
    });
    // A for_each node's instances are joined by a plan step (it writes NodeJoined), as the recipe runs one.
    if (opts.forEach) {
      const again = await runStep(job('plan', 'runner-plan', { mode: 'plan' }));
      p.check(again.code === 0, `the second plan step exited ${again.code}: ${again.stdout.slice(-300)}`);
    }
    const joined = await runStep(job('join', 'runner-join', { node: 'join' }));
    p.check(
      joined.outputs.status === 'completed',
      `the join ended ${joined.outputs.status}: ${joined.stdout.slice(-300)}`,
    );
    const text = world.journalText(`race/issue-${issue}`);
    const effects = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
    const c = checkRace(p, text, graph, [...nodes, 'join'], effects);
    const progress = world.repo.commentsOn(issue).filter((m) => m.body.includes('<!-- interlock:progress'));
    p.check(progress.length === 1, `${progress.length} progress comments on the issue`);
    return {
      jobs,
      events: c.journal?.events.length ?? 0,
      lost: c.lost,
      doubleDispatched: c.doubleDispatched,
      conflicts: puts.filter((r) => r.status === 409 || r.status === 422).length,
      jobListings,
      requests,
      writes,
      model,
      ms,
      failedSteps: failed.length,
      problems: p.list,
    };
  } finally {
    await killTagged(tag);
    await world.close();
    rmSync(root, { recursive: true, force: true });
  }
}
