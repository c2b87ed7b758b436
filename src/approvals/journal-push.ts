// The App's watch on the journal branches: each pushed run of a pull request shown as a check run.
import { subjectOfRun, validRunId } from '../journal/run-id.js';
import { runIdOfBranch } from '../store/git-layout.js';
import { runIdOfPath } from '../store/git-runs.js';
import type { HandlerDeps } from './deps.js';
import { loadRun, stateOf } from './lookup/load-run.js';
import { publishCheckRun } from './replies/check-run.js';

/** The fields of a `push` webhook payload the journal watcher reads. */
interface PushPayload {
  ref: string;
  commits?: Array<{ added?: string[]; modified?: string[] }>;
}

/** On a push to a run's branch or the journal branch (the App only), shows each changed run of a pull request as a check run. */
export async function handleJournalPush(deps: HandlerDeps, payload: PushPayload): Promise<string[]> {
  if (!deps.checkRuns) return [];
  // A run's own branch holds that run alone; the journal branch of before, the runs its commits touched.
  const own = runIdOfBranch(deps.journalBranch, payload.ref);
  if (own === undefined && payload.ref !== `refs/heads/${deps.journalBranch}`) return [];
  const paths = new Set((payload.commits ?? []).flatMap((c) => [...(c.added ?? []), ...(c.modified ?? [])]));
  const runIds = own !== undefined ? [own] : [...paths].flatMap((p) => runIdOfPath(p) ?? []);
  const shown: string[] = [];
  for (const runId of runIds) {
    const subject = subjectOfRun(runId);
    if (subject?.kind !== 'pr' || !validRunId(runId)) continue;
    const l = await loadRun(deps, runId);
    const s = l.ok ? stateOf(l.run) : undefined;
    if (!l.ok || !s?.ok) {
      deps.log?.(`interlock: run ${runId} not shown: ${!l.ok ? l.problem : s && !s.ok ? s.problem : ''}`);
      continue;
    }
    await publishCheckRun(deps, subject, l.run.graph, s.state, runId);
    shown.push(runId);
  }
  return shown;
}
