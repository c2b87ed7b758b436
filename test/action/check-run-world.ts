/**
 * What the check-run store's pull request suites share: a three-node review graph whose `lint` is
 * `replay: never`, its routes, and a running workflow job per step (so recovery can ask whether it still runs).
 */
import type { RepoState } from '../support/github-server.js';

/** lint (never) -> test -> ship, each appending `<node> <attempt>` to effects.log. */
export const REVIEW_GRAPH = `interlock: 1
name: review
nodes:
  - id: lint
    replay: never
    run: echo "lint $INTERLOCK_ATTEMPT" >> effects.log
  - id: test
    depends_on: [lint]
    run: echo "test $INTERLOCK_ATTEMPT" >> effects.log
  - id: ship
    depends_on: [test]
    run: echo "ship $INTERLOCK_ATTEMPT" >> effects.log
`;

/** Routes sending the pull request actions given to the review graph. */
export const reviewConfig = (actions: string[]) => `routes:
  - event: pull_request
    action: [${actions.join(', ')}]
    graph: .github/interlock/review.yml
`;

/** The workspace files of a repository with the review graph routed for `actions`. */
export const reviewFiles = (actions: string[]) => ({
  '.github/interlock.yml': reviewConfig(actions),
  '.github/interlock/review.yml': REVIEW_GRAPH,
});

/** A workflow job GitHub says is running, numbered from `counter`. */
export function runningJob(repo: RepoState, counter: { next: number }, event: string) {
  const runId = ++counter.next;
  repo.addWorkflowRun({
    workflow: 'review.yml',
    id: runId,
    event,
    status: 'in_progress',
    jobs: [{ name: 'interlock', runner_name: `runner-${runId}` }],
  });
  return { runId, runner: `runner-${runId}` };
}
