// What a matrix fan-out costs in GitHub requests: N `node: <name>` steps of one workflow run, each a job of its own
// (a child process running dist/index.js with a runner's environment), all started together as a matrix starts
// them, against the local GitHub; the server's request log counts every request by route. Any graph: give its
// text and the names of the nodes the matrix runs (`matrixCost`); the plan step before them and the join steps
// after them are counted apart.

import { runIdOfBranch } from '../src/store/git-layout.js';
import {
  makeWorkspace,
  runStep,
  type StepOptions,
  startStep,
  worldLog,
} from '../test/support/action-process.js';
import { issuesLabeled } from '../test/support/fixtures.js';
import type { LoggedRequest } from '../test/support/github/request-log.js';
import {
  type GitHubServer,
  type LikeGitHubOptions,
  type LoadStats,
  startGitHubServer,
} from '../test/support/github-server.js';

export const OWNER = 'acme';
export const REPO = 'widgets';
const GRAPH_PATH = '.github/interlock/fan.yml';
const CONTENTS = '/repos/{owner}/{repo}/contents/{path}';
const JOBS = 'GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs';
export const WORKFLOW_RUN_ID = 7100;

/** Requests of a set of steps, by what they are for. */
export interface RequestCounts {
  total: number;
  journalGets: number;
  /** Journal PUTs that landed (2xx). */
  journalWrites: number;
  /** Journal PUTs refused because the journal had moved on (409/422): each is re-read and decided again. */
  conflicts: number;
  /** The refused PUTs by what they would have written: a dispatch, a record, the progress comment's id. */
  conflictsBy: Record<string, number>;
  /**
   * Landed dispatches and records by how many refused PUTs of the same write came before (`{ "0": 30, "1": 9 }`):
   * a write refused once met the others in their first round; more, the retries met again.
   */
  refusedBefore: Record<string, number>;
  /** `GET /actions/runs/{id}/attempts/{n}/jobs`: recovery asking whether an in-flight node's job still runs. */
  jobsProbes: number;
  /** Everything else (the progress comment, the run attempt, evidence), by route. */
  others: Record<string, number>;
  /** POST, PUT, PATCH, DELETE: what GitHub's secondary limit counts (80 a minute, 500 an hour). */
  contentCreating: number;
  /** Refused with 403/429 for going too fast (a secondary limit), and so waited out and sent again. */
  throttled: number;
}

export interface MatrixCost {
  steps: number;
  /** The N parallel node steps. */
  matrix: RequestCounts;
  perStep: number;
  /** The plan step before, and the join steps after (each alone, one after another). */
  plan: RequestCounts;
  join: RequestCounts;
  /** Bytes of each landed journal PUT's request body (JSON, the journal in base64). */
  bytesPerWrite: { mean: number; max: number };
  /** Wall time of the matrix (all N steps). */
  ms: number;
  /** Nodes of the matrix dispatched more than once, and events of theirs missing from the journal. */
  dispatchedTwice: number;
  lost: number;
  failedSteps: string[];
  /** What the like-GitHub model did over the whole run (stale answers, raced writes, limited requests). */
  model: LoadStats;
}

export interface MatrixOptions {
  /** Nodes run one after another after the matrix, in jobs of their own (the join). */
  join?: string[];
  /** Least time between two writes of one step (GitHub's guidance: 1,000 ms; 0 for a quick run). */
  writeIntervalMs?: number;
  /** Milliseconds per second of a `retry-after` wait (1,000 waits as GitHub says; the test default is 5). */
  retryBaseMs?: number;
  /** Another build of the action to measure (a baseline); default this tree's dist/. */
  dist?: string;
  /** Content-creating requests the local GitHub allows per minute before its secondary limit (GitHub: 80). */
  writesPerMinute?: number;
  /** The local GitHub's like-GitHub model (test/support/README.md); default: its defaults. */
  likeGitHub?: LikeGitHubOptions | false;
  /** Report what went wrong in the figures instead of throwing (the like-GitHub section). */
  report?: boolean;
  /**
   * The plan dispatches the wave (`dispatch: ready`) and passes its commit to the jobs (`journal-sha`), so each job
   * writes only its record; default: each job dispatches its own node.
   */
  planDispatch?: boolean;
}

/** The plan step's inputs, and a job's for `node`, as the workflow passes them (`planDispatch`). */
export function waveInputs(options: MatrixOptions): {
  plan: Record<string, string>;
  job: (node: string, planOutputs: Record<string, string>) => Record<string, string>;
} {
  if (!options.planDispatch) return { plan: { mode: 'plan' }, job: (node) => ({ node }) };
  return {
    plan: { mode: 'plan', dispatch: 'ready' },
    job: (node, out) => ({ node, ...(out['journal-sha'] ? { 'journal-sha': out['journal-sha'] } : {}) }),
  };
}

export function counts(reqs: LoggedRequest[]): RequestCounts {
  const journal = (r: LoggedRequest) => r.kind.endsWith(CONTENTS) && /\/contents\/runs\//.test(r.path);
  const others: Record<string, number> = {};
  let journalGets = 0;
  let journalWrites = 0;
  let conflicts = 0;
  const conflictsBy: Record<string, number> = {};
  let jobsProbes = 0;
  let throttled = 0;
  for (const r of reqs) {
    if (r.status === 403 || r.status === 429) throttled++;
    if (journal(r) && r.method === 'GET') journalGets++;
    else if (journal(r) && r.method === 'PUT' && (r.status === 409 || r.status === 422)) {
      conflicts++;
      const what = writtenFor(r);
      conflictsBy[what] = (conflictsBy[what] ?? 0) + 1;
    } else if (journal(r) && r.method === 'PUT' && r.status < 300) journalWrites++;
    else if (journal(r) && r.method === 'PUT')
      others[`journal PUT answered ${r.status}`] = (others[`journal PUT answered ${r.status}`] ?? 0) + 1;
    else if (r.kind === JOBS) jobsProbes++;
    else others[r.kind] = (others[r.kind] ?? 0) + 1;
  }
  return {
    total: reqs.length,
    journalGets,
    journalWrites,
    conflicts,
    conflictsBy,
    refusedBefore: refusedBefore(reqs.filter(journal)),
    jobsProbes,
    others,
    contentCreating: reqs.filter((r) => r.method !== 'GET' && r.method !== 'HEAD').length,
    throttled,
  };
}

/** For each landed dispatch or record (by node), the refused PUTs of it that came before, as a histogram. */
function refusedBefore(journalReqs: LoggedRequest[]): Record<string, number> {
  const refused = new Map<string, number>();
  const out: Record<string, number> = {};
  for (const r of journalReqs) {
    if (r.method !== 'PUT') continue;
    const message = String((r.body as { message?: unknown } | undefined)?.message ?? '');
    const node = /Node(?:Dispatched|Recorded|Failed) (\S+)#/.exec(message)?.[1];
    if (!node) continue;
    const key = `${writtenFor(r)} ${node}`;
    if (r.status === 409 || r.status === 422) refused.set(key, (refused.get(key) ?? 0) + 1);
    else if (r.status < 300) {
      const n = String(refused.get(key) ?? 0);
      out[n] = (out[n] ?? 0) + 1;
      refused.delete(key);
    }
  }
  return out;
}

/** What a journal PUT was for, from its commit message (`interlock: <run> NodeDispatched n3#1, ...`). */
function writtenFor(r: LoggedRequest): string {
  const message = String((r.body as { message?: unknown } | undefined)?.message ?? '');
  if (/progress comment/.test(message)) return 'progress comment id';
  if (/NodeRecorded|NodeFailed|NodeEscalated/.test(message)) return 'record';
  if (/NodeDispatched/.test(message)) return 'dispatch';
  return 'other';
}

/** The journal's events as the server holds them (the run's file and, if any, the files beside it). */
export function journalEvents(server: GitHubServer): Array<{ type: string; node?: string }> {
  const repo = server.state.repo(`${OWNER}/${REPO}`);
  // The journal branch of before, and each run's own branch (interlock-journal-runs/<run-id>).
  const branches = [
    'interlock-journal',
    ...[...repo.refs.keys()].flatMap((r) =>
      runIdOfBranch('interlock-journal', r) ? [r.slice('refs/heads/'.length)] : [],
    ),
  ];
  const out: Array<{ type: string; node?: string }> = [];
  for (const branch of branches) {
    const files = repo.listFiles?.(branch) ?? [];
    for (const f of files.filter((p: string) => p.startsWith('runs/') && p.endsWith('.json'))) {
      const text = repo.readText(f, branch);
      if (text) out.push(...(JSON.parse(text) as { events: Array<{ type: string; node?: string }> }).events);
    }
  }
  return out;
}

export interface MatrixWorld {
  server: GitHubServer;
  /** The step of a job of the workflow run: its own checkout, a runner's environment, the writes spaced. */
  job(key: string, runner: string, inputs: Record<string, string>): StepOptions;
  /** Notes a step that did not exit 0 in `failed`. */
  check(name: string, r: { code: number | null; stdout: string; stderr: string }): void;
  failed: string[];
  close(): Promise<void>;
}

/**
 * The local GitHub with the repository, the issue that starts the run, the route to `graphText`, and one workflow
 * run holding `jobs` (name and runner, all in progress), for steps started through `job`.
 */
export async function matrixWorld(
  graphText: string,
  jobs: Array<{ name: string; runner_name: string }>,
  options: MatrixOptions = {},
): Promise<MatrixWorld> {
  const server = await startGitHubServer({
    rateLimit: Number.MAX_SAFE_INTEGER,
    ...(options.likeGitHub !== undefined ? { likeGitHub: options.likeGitHub } : {}),
    ...(options.writesPerMinute ? { secondaryLimit: { writesPerMinute: options.writesPerMinute } } : {}),
    repos: [{ owner: OWNER, name: REPO }],
  });
  const repo = server.state.repo(`${OWNER}/${REPO}`);
  repo.addIssue({ number: 1, title: 'Fan out', labels: ['agent:fan'] });
  repo.addWorkflowRun({
    workflow: 'interlock.yml',
    id: WORKFLOW_RUN_ID,
    event: 'issues',
    status: 'in_progress',
    jobs: jobs.map((j) => ({ ...j, status: 'in_progress' as const })),
  });
  const files = {
    '.github/interlock.yml': `routes:\n  - event: issues\n    action: labeled\n    label: "agent:fan"\n    graph: ${GRAPH_PATH}\n`,
    [GRAPH_PATH]: graphText,
  };
  // Each job has a checkout of its own; the nodes (run as the node user) append to a file outside them all.
  const effects = worldLog();
  const failed: string[] = [];
  return {
    server,
    failed,
    job: (key, runner, inputs) => ({
      apiUrl: server.url,
      repository: `${OWNER}/${REPO}`,
      workspace: makeWorkspace(files),
      eventName: 'issues',
      payload: issuesLabeled(OWNER, REPO, 1, 'agent:fan', 'Fan out'),
      inputs,
      job: { runId: WORKFLOW_RUN_ID, attempt: 1, job: key, runner },
      ...(options.dist ? { dist: options.dist } : {}),
      env: {
        INTERLOCK_WRITE_INTERVAL_MS: String(options.writeIntervalMs ?? 1000),
        ...(options.retryBaseMs !== undefined
          ? { INTERLOCK_RETRY_BASE_MS: String(options.retryBaseMs) }
          : {}),
        EFFECTS: effects,
      },
    }),
    check: (name, r) => {
      if (r.code !== 0) failed.push(`${name}: exit ${r.code}: ${(r.stderr || r.stdout).slice(-300)}`);
    },
    close: () => server.close(),
  };
}

/** Bytes of each landed journal PUT's request body (JSON, the journal in base64), among `reqs`. */
export function landedWriteBytes(reqs: LoggedRequest[]): number[] {
  return reqs
    .filter((r) => r.method === 'PUT' && /\/contents\/runs\//.test(r.path) && r.status < 300)
    .map((r) => Buffer.byteLength(JSON.stringify(r.body)));
}

/**
 * Runs `mode: plan`, then one `node: <name>` step per name in `stepNodes`, all started at once (as a matrix
 * does), then the join steps; counts the requests of each part from the local GitHub's log.
 */
export async function matrixCost(
  graphText: string,
  stepNodes: string[],
  options: MatrixOptions = {},
): Promise<MatrixCost> {
  const joins = options.join ?? [];
  const w = await matrixWorld(
    graphText,
    [
      { name: 'plan', runner_name: 'runner-plan' },
      ...stepNodes.map((id, i) => ({ name: `fanout (${id})`, runner_name: `runner-${i + 1}` })),
      ...joins.map((id) => ({ name: `join (${id})`, runner_name: `runner-${id}` })),
    ],
    options,
  );
  const { server, job, check } = w;
  try {
    let mark = server.requests.mark();
    const inputs = waveInputs(options);
    const planned = await runStep(job('plan', 'runner-plan', inputs.plan));
    check('plan', planned);
    const plan = counts(server.requests.filter({ since: mark }));
    mark = server.requests.mark();
    const t0 = performance.now();
    const results = await Promise.all(
      stepNodes.map(
        (id, i) => startStep(job('fanout', `runner-${i + 1}`, inputs.job(id, planned.outputs))).done,
      ),
    );
    const ms = performance.now() - t0;
    for (const [i, r] of results.entries()) check(stepNodes[i]!, r);
    const matrix = counts(server.requests.filter({ since: mark }));
    mark = server.requests.mark();
    for (const id of joins) check(id, await runStep(job('join', `runner-${id}`, { node: id })));
    const joinCounts = counts(server.requests.filter({ since: mark }));
    const bodies = landedWriteBytes(server.requests.filter({}));
    const events = journalEvents(server);
    let dispatchedTwice = 0;
    let lost = 0;
    for (const id of stepNodes) {
      const of = (t: string) => events.filter((e) => e.type === t && e.node === id).length;
      if (of('NodeDispatched') > 1) dispatchedTwice++;
      if (of('NodeRecorded') !== 1) lost++;
    }
    return {
      steps: stepNodes.length,
      matrix,
      perStep: matrix.total / stepNodes.length,
      plan,
      join: joinCounts,
      bytesPerWrite: {
        mean: bodies.reduce((a, b) => a + b, 0) / Math.max(1, bodies.length),
        max: Math.max(0, ...bodies),
      },
      ms,
      dispatchedTwice,
      lost,
      failedSteps: w.failed,
      model: { ...server.model.stats },
    };
  } finally {
    await w.close();
  }
}

/** N independent nodes, each appending a line to a shared file, and a join after them all. */
export function fanGraph(n: number): { text: string; nodes: string[] } {
  const nodes = Array.from({ length: n }, (_, i) => `n${i + 1}`);
  const text = `interlock: 1
name: fan
nodes:
${nodes.map((id) => `  - id: ${id}\n    run: echo "$INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> "$EFFECTS"\n`).join('')}  - id: join
    depends_on: [${nodes.join(', ')}]
    run: echo join >> "$EFFECTS"
`;
  return { text, nodes };
}

if (process.argv[1]?.endsWith('matrix.ts')) {
  const n = Number(process.argv[2] ?? 5);
  const g = fanGraph(n);
  const r = await matrixCost(g.text, g.nodes, {
    join: ['join'],
    writeIntervalMs: Number(process.env.INTERLOCK_WRITE_INTERVAL_MS ?? 1000),
    ...(process.env.BENCH_DIST ? { dist: process.env.BENCH_DIST } : {}),
    ...(process.env.BENCH_WPM ? { writesPerMinute: Number(process.env.BENCH_WPM), retryBaseMs: 1000 } : {}),
  });
  console.log(JSON.stringify(r, null, 2));
}
