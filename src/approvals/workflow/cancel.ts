// `/fail-run` stops the work: after the journal records the run as failed, the workflow runs of this repository
// that still run one of its attempts are cancelled through the Actions API, and the reply says what came of it.
import { statusOf } from '../../github/status.js';
import type { RunState } from '../../journal/state.js';
import type { HandlerDeps } from '../deps.js';

/** The workflow runs executing the run's in-flight attempts, as their dispatches recorded them. Pure. */
function workflowRunsInFlight(state: RunState): number[] {
  const ids: number[] = [];
  for (const node of state.checkpoint.active_nodes) {
    const runner = state.nodes.get(node)?.dispatch?.runner;
    const id = runner?.kind === 'actions' ? runner.workflow_run_id : undefined;
    if (id !== undefined && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** Cancels each workflow run in flight; words for the reply, or undefined when none was in flight. */
export async function cancelInFlight(
  deps: Pick<HandlerDeps, 'octokit' | 'repo'>,
  state: RunState,
): Promise<string | undefined> {
  const ids = workflowRunsInFlight(state);
  if (!ids.length) return undefined;
  const said: string[] = [];
  for (const run_id of ids) {
    try {
      await deps.octokit.request('POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel', {
        ...deps.repo,
        run_id,
      });
      said.push(`cancelled workflow run ${run_id}`);
    } catch (e) {
      // 409: it finished meanwhile; anything else is told, and the run stays failed in the journal either way.
      const s = statusOf(e);
      said.push(
        s === 409
          ? `workflow run ${run_id} had already finished`
          : `could not cancel workflow run ${run_id} (${s ?? 'error'}: ${(e as Error).message}); cancel it in the Actions tab`,
      );
    }
  }
  return `The journal records the run as failed first; then interlock ${said.join('; ')}.`;
}
