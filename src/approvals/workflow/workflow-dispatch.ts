// Dispatching the workflow that runs a graph, as the journal recorded it, so a released node runs again.
import type { RepoRef } from '../../github/client.js';
import type { Journal } from '../../journal/events/events.js';
import type { HandlerDeps } from '../deps.js';

/** The workflow that runs a graph, as the Action recorded it (`owner/repo/.github/workflows/<file>@<ref>`). */
export interface WorkflowTarget {
  file: string;
  /** A branch or tag name; undefined when the recorded ref cannot be dispatched (a pull request's merge ref). */
  ref?: string;
}

const WORKFLOW_REF = /^([^/]+)\/([^/]+)\/\.github\/workflows\/([^/@]+)@(.+)$/;

/** Parses a recorded `workflow_ref`; undefined when it is not one, or names another repository. Pure. */
function parseWorkflowRef(value: unknown, repo: RepoRef): WorkflowTarget | undefined {
  if (typeof value !== 'string') return undefined;
  const m = WORKFLOW_REF.exec(value);
  if (!m) return undefined;
  if (m[1]!.toLowerCase() !== repo.owner.toLowerCase() || m[2]!.toLowerCase() !== repo.repo.toLowerCase())
    return undefined;
  const ref = /^refs\/(heads|tags)\/(.+)$/.exec(m[4]!);
  return { file: m[3]!, ...(ref ? { ref: ref[2]! } : {}) };
}

/** The workflow to dispatch for a run: the one that last dispatched `node`, else any that ran the run. Pure. */
export function workflowOf(journal: Journal, repo: RepoRef, node?: string): WorkflowTarget | undefined {
  const events = [...journal.events].reverse();
  const mine = events.find((e) => e.type === 'NodeDispatched' && e.node === node && e.runner.workflow_ref);
  for (const e of mine ? [mine, ...events] : events) {
    if (e.type !== 'NodeDispatched' && e.type !== 'RunStarted') continue;
    const target = parseWorkflowRef(e.runner.workflow_ref, repo);
    if (target) return target;
  }
  return undefined;
}

/** The workflow run a dispatch started: its page, and its id when GitHub said it. */
export interface StartedWorkflowRun {
  link: string;
  /** `workflow_run_id` of the answer; absent where GitHub answers 204 with no body (GitHub Enterprise Server). */
  workflowRunId?: number;
}

/** The workflow run a dispatch's answer names (200 with `return_run_details`), or nothing (204). Pure. */
export function dispatchedRun(data: unknown): { workflowRunId?: number; html_url?: string } {
  if (data === null || typeof data !== 'object') return {};
  const d = data as { workflow_run_id?: unknown; html_url?: unknown };
  return {
    ...(typeof d.workflow_run_id === 'number' &&
    Number.isSafeInteger(d.workflow_run_id) &&
    d.workflow_run_id > 0
      ? { workflowRunId: d.workflow_run_id }
      : {}),
    ...(typeof d.html_url === 'string' && /^https?:\/\//.test(d.html_url) ? { html_url: d.html_url } : {}),
  };
}

/**
 * Dispatches the workflow with input `run-id`, so the run's next step starts with no one touching the Actions
 * tab. Asks GitHub for the run it started (`return_run_details`): its id and page; where GitHub answers 204 with
 * no body (GitHub Enterprise Server before the option), the link goes to the workflow's runs and no id is known.
 */
export async function dispatchWorkflow(
  deps: HandlerDeps,
  target: WorkflowTarget,
  runId: string,
  defaultBranch: string,
): Promise<StartedWorkflowRun> {
  const r = await deps.octokit.request(
    'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
    {
      ...deps.repo,
      workflow_id: target.file,
      ref: target.ref ?? defaultBranch,
      inputs: { 'run-id': runId },
      return_run_details: true,
    },
  );
  const run = dispatchedRun(r.data);
  const link =
    run.html_url ??
    (run.workflowRunId !== undefined
      ? `${deps.webUrl}/${deps.repo.owner}/${deps.repo.repo}/actions/runs/${run.workflowRunId}`
      : `${deps.webUrl}/${deps.repo.owner}/${deps.repo.repo}/actions/workflows/${encodeURIComponent(target.file)}`);
  return { link, ...(run.workflowRunId !== undefined ? { workflowRunId: run.workflowRunId } : {}) };
}
