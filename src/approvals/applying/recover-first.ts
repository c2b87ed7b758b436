/**
 * The comment handler recovers before it applies a command, as a step does at its start: when the node a command
 * names is in flight, it asks GitHub whether the attempt's workflow run has ended and, if so, records the interruption;
 * the command then applies to the held node. When the run is still going it says so, and what to do, in
 * the words of the command that was used.
 */
import type { RunnerInfo } from '../../journal/events/fields.js';
import type { RunState } from '../../journal/state.js';
import type { RunSetup } from '../../runner/journal-io/read.js';
import { actionsProbes, type JobIdentity } from '../../runner/recovery/actions-probe.js';
import { recover } from '../../runner/recovery/recover.js';
import type { Command } from '../commands/parse.js';
import type { HandlerDeps } from '../deps.js';

/** The handler is no job of any run: no attempt is ever "this job's". */
const NO_JOB: JobIdentity = { workflow_run_id: -1, run_attempt: -1, job: '', runner_name: '' };

/** The command as a person would post it again. */
function commandWords(command: Exclude<Command, { kind: 'status' }>): string {
  if (command.kind === 'approve-rerun') return `/approve-rerun ${command.node}`;
  if (command.kind === 'approve') return `/approve ${command.node}`;
  if (command.kind === 'rerun-from') return `/rerun-from ${command.node}`;
  if (command.kind === 'settle') return `/settle ${command.node} <what you checked>`;
  return '/fail-run <reason>';
}

/**
 * Recovery from outside any job (the comment handler, `mode: stuck`): asks GitHub whether each in-flight
 * attempt's workflow run has ended and records those that have as interrupted. One home for the rule.
 */
export function recoverEnded(
  deps: Pick<HandlerDeps, 'octokit' | 'repo'>,
  opts: { setup: RunSetup; recoveredBy: string; runner: RunnerInfo },
): ReturnType<typeof recover> {
  return recover({
    ...opts.setup,
    probe: (node, d) => actionsProbes(deps.octokit, deps.repo, NO_JOB)(node, d),
    probes: () => actionsProbes(deps.octokit, deps.repo, NO_JOB),
    recoveredBy: opts.recoveredBy,
    runner: () => opts.runner,
  });
}

/** Recovers the named node when its executor is gone; else why the command must wait, and what to do. */
export async function recoverFirst(
  deps: HandlerDeps,
  opts: {
    setup: RunSetup;
    state: RunState;
    command: Exclude<Command, { kind: 'status' }>;
    runner: RunnerInfo;
    login: string;
  },
): Promise<{ ok: true } | { ok: false; why: string }> {
  const { command, state } = opts;
  if (command.kind === 'fail-run') return { ok: true };
  if (state.nodes.get(command.node)?.state !== 'in_flight') return { ok: true };
  const r = await recoverEnded(deps, {
    setup: opts.setup,
    recoveredBy: `interlock, on ${opts.login}'s ${command.kind === 'approve-rerun' || command.kind === 'rerun-from' ? `/${command.kind}` : '/settle'}`,
    runner: opts.runner,
  });
  if (r.interrupted.includes(command.node)) return { ok: true };
  const left = r.left.find((l) => l.node === command.node);
  if (r.cur.state.nodes.get(command.node)?.state !== 'in_flight') return { ok: true };
  return {
    ok: false,
    why: `node "${command.node}" is still in flight (${left?.why ?? 'its executor may still be running'}), so the command cannot be applied yet: once that workflow run has ended (cancel it, or let it finish), post \`${commandWords(command)}\` again and interlock records the interruption first`,
  };
}
