/**
 * The crash matrix at an effect's requests: for each effect kind, the step of the bundled action is killed with
 * SIGKILL before each GitHub request the effect makes is sent (`effect:before-request#n`) and after each answer
 * came but before the step did anything with it (`effect:after-request#n`: GitHub made the write, the step never
 * learnt of it), and also after the whole effect before its record (`after-command`); the next workflow run then
 * goes on. Afterwards the branch has exactly one commit of the effect, there is one pull request, one comment,
 * and the labels asked for, and the run completed without a person. `n` counts up from 1 until a run is no
 * longer killed, so every request is covered however many the effect makes.
 */

import { type EffectWorld, effectWorlds, graph } from '../action/effect-world.js';
import { endWorkflowRun, eventsOf, FULL, OWNER, REPO, readJournal } from '../action/world.js';
import { runStep } from '../support/action-process.js';
import { ORDER_CLOCK } from '../support/clock.js';
import { type GitHubServer, type RepoState, startGitHubServer } from '../support/github-server.js';
import { concurrency, Problems, pool } from './support.js';

export const EFFECT_KINDS = ['push', 'pull_request', 'comment', 'labels', 'release'] as const;
export type EffectKind = (typeof EFFECT_KINDS)[number];
export const EFFECT_POINTS = ['effect:before-request', 'effect:after-request'] as const;

const BRANCH = 'interlock/issue-${{ github.event.issue.number }}';
const NODE: Record<EffectKind, string> = {
  push: `    effect:\n      push: { branch: "${BRANCH}", message: "fix: the issue" }\n`,
  pull_request: `    effect:\n      pull_request:\n        branch: "${BRANCH}"\n        base: "base-\${{ github.event.issue.number }}"\n        title: "Fix #\${{ github.event.issue.number }}"\n        labels: [interlock]\n`,
  comment: `    effect:\n      comment: { body: "done" }\n`,
  labels: `    effect:\n      labels: { add: [has-fix], remove: [agent:ship] }\n`,
  release: `    effect:\n      release: { tag: "v\${{ github.event.issue.number }}", generate_notes: true }\n`,
};
const graphOf = (kind: EffectKind) => graph(`  - id: effect\n    depends_on: [implement]\n${NODE[kind]}`);

export interface EffectCrashResult {
  id: string;
  kind: EffectKind;
  /** The failpoint, e.g. `effect:after-request#3`; `after-command` kills after the whole effect. */
  failpoint: string;
  /** Whether the step was killed there (the last `#n` of each point is not: the effect makes fewer requests). */
  killed: boolean;
  steps: number;
  problems: string[];
}

/** What the world holds once the run went on: each effect exactly once, and done. */
function checkOnce(repo: RepoState, server: GitHubServer, w: EffectWorld, kind: EffectKind, p: Problems) {
  const journal = readJournal(server, w.runId);
  const recorded = eventsOf(journal, 'NodeRecorded', 'effect');
  p.check(recorded.length === 1, `effect recorded ${recorded.length} times`);
  const key = `${w.runId}/effect`;
  const branch = `interlock/issue-${w.issue}`;
  if (kind === 'push' || kind === 'pull_request') {
    const tip = repo.branchSha(branch);
    if (!p.check(tip !== undefined, `no branch ${branch}`)) return;
    const marked: string[] = [];
    for (let sha: string | undefined = tip; sha && sha !== w.sha; ) {
      const c = repo.git.commit(sha);
      if (!c) break;
      if (new RegExp(`^Interlock-Effect: ${key} [0-9a-f]{64}$`, 'm').test(c.message)) marked.push(sha);
      sha = c.parents[0];
    }
    p.check(marked.length === 1, `${marked.length} commits of the effect on ${branch}`);
    p.check(repo.git.commit(tip!)?.parents[0] === w.sha, `the branch's commit is not laid on the checkout's`);
    p.check(
      recorded[0]?.outputs.sha === tip,
      `the recorded sha ${recorded[0]?.outputs.sha} is not the tip ${tip}`,
    );
  }
  if (kind === 'pull_request') {
    const pulls = [...repo.issues.values()].filter((i) => i.pull?.head.ref === branch);
    p.check(pulls.length === 1, `${pulls.length} pull requests from ${branch}`);
    p.check(pulls[0]?.labels.includes('interlock') === true, 'the pull request lacks its label');
    p.check(
      recorded[0]?.outputs.number === String(pulls[0]?.number),
      'the recorded number is not the pull request',
    );
  }
  if (kind === 'comment') {
    const mine = repo
      .commentsOn(w.issue)
      .filter((c) => new RegExp(`<!-- interlock:effect ${key} [0-9a-f]{64} -->`).test(c.body));
    p.check(mine.length === 1, `${mine.length} comments of the effect`);
  }
  if (kind === 'labels') {
    const labels = repo.issue(w.issue)?.labels ?? [];
    p.check(labels.includes('has-fix') && !labels.includes('agent:ship'), `labels are ${labels.join(', ')}`);
  }
  if (kind === 'release') {
    const made = [...repo.releases.values()].filter((r) => r.tag_name === `v${w.issue}`);
    p.check(made.length === 1, `${made.length} releases of v${w.issue}`);
  }
  // Nobody was asked: an interrupted effect asks GitHub, not a person.
  p.check(eventsOf(journal, 'RerunApproved').length === 0, 'a person had to approve a rerun');
}

async function scenario(
  server: GitHubServer,
  world: (g: string) => EffectWorld,
  kind: EffectKind,
  failpoint: string,
): Promise<EffectCrashResult> {
  const repo = server.state.repo(FULL);
  const p = new Problems();
  const w = world(graphOf(kind));
  const first = w.step({ INTERLOCK_FAILPOINTS: failpoint.includes('#') ? failpoint : `${failpoint}@effect` });
  const r = await runStep(first);
  const killed = r.signal === 'SIGKILL';
  let steps = 1;
  let status = r.outputs.status;
  if (killed) endWorkflowRun(repo, first.job.runId);
  while (status !== 'completed' && steps < 4) {
    const next = await runStep(w.step());
    steps++;
    status = next.outputs.status;
    if (next.signal) p.add(`a step with no failpoint ended by ${next.signal}`);
    if (status !== 'completed' && status !== 'running') {
      p.add(`the run is ${status}: ${next.log.slice(-800)}`);
      break;
    }
  }
  if (p.check(status === 'completed', `the run did not complete within ${steps} steps`))
    checkOnce(repo, server, w, kind, p);
  return { id: `${kind} · ${failpoint}`, kind, failpoint, killed, steps, problems: p.list };
}

/**
 * Every scenario of the kinds given: for each kind and point, n = 1, 2, … until a step is no longer killed,
 * and `after-command`. Each chain of `n` runs one after another; chains run side by side.
 */
export async function runEffectCrashes(
  kinds: readonly EffectKind[] = EFFECT_KINDS,
  opts: { jobs?: number; onResult?: (r: EffectCrashResult) => void; only?: (chain: string) => boolean } = {},
): Promise<EffectCrashResult[]> {
  const server = await startGitHubServer({
    // Dozens of chains share one server and one token, and wait retry-after 200 times faster than GitHub asks:
    // their pace over a minute is that of many repositories, so the secondary limit is off (as in the
    // reliability world); stale reads and raced writes stay on, on the order clock as the crash matrix's
    // (test/support/clock.ts): what is checked is that each effect happens once, not GitHub's timing.
    likeGitHub: { secondaryLimit: false, ...ORDER_CLOCK },
    repos: [{ owner: OWNER, name: REPO }],
  });
  const world = effectWorlds(server, 1000);
  const chains = kinds
    .flatMap((kind) => [...EFFECT_POINTS.map((point) => ({ kind, point })), { kind, point: 'after-command' }])
    .filter(({ kind, point }) => opts.only?.(`${kind} · ${point}`) ?? true);
  try {
    const out = await pool(chains, opts.jobs ?? concurrency(), async ({ kind, point }) => {
      const results: EffectCrashResult[] = [];
      for (let n = 1; n <= 40; n++) {
        const r = await scenario(server, world, kind, point === 'after-command' ? point : `${point}#${n}`);
        results.push(r);
        opts.onResult?.(r);
        if (!r.killed || point === 'after-command') break;
      }
      return results;
    });
    return out.flat();
  } finally {
    await server.close();
  }
}
