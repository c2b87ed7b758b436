/**
 * The attempts the key proxy metered, from the journal (issue 48): where each one's model exchange is kept (its
 * recording's path and SHA-256, and on GitHub the workflow artifact that keeps it) and the difference between
 * what the proxy metered and what the agent reported, when the journal has one. For `interlock status` (text and
 * `--json`) and the maintainers' page.
 */
import type { JournalEvent } from '../../journal/events/events.js';
import { replayCommand } from '../next-commands.js';

/** One metered attempt: its recording, and the metered-vs-reported difference, each when the journal has it. */
export interface MeteredAttempt {
  node: string;
  attempt: number;
  recording?: {
    path: string;
    sha256: string;
    calls: number;
    /** The workflow artifact that keeps it (the Action). */
    artifact?: { name: string; workflow_run_id: number };
  };
  difference?: string;
}

type Ended = Extract<JournalEvent, { type: 'NodeRecorded' | 'NodeFailed' }>;

/** The metered attempts with a recording or a difference, in the order they ended. */
export function meteredAttempts(events: readonly JournalEvent[]): MeteredAttempt[] {
  const out: MeteredAttempt[] = [];
  for (const e of events) {
    if (e.type !== 'NodeRecorded' && e.type !== 'NodeFailed') continue;
    const u = (e as Ended).usage as {
      metered?: {
        recording?: { path: string; sha256: string; calls: number; artifact?: Record<string, unknown> };
      };
      difference?: unknown;
    };
    const r = u.metered?.recording;
    const recording =
      r && typeof r.path === 'string' && typeof r.sha256 === 'string'
        ? {
            path: r.path,
            sha256: r.sha256,
            calls: r.calls,
            ...(typeof r.artifact?.name === 'string' && typeof r.artifact.workflow_run_id === 'number'
              ? { artifact: { name: r.artifact.name, workflow_run_id: r.artifact.workflow_run_id } }
              : {}),
          }
        : undefined;
    const difference = typeof u.difference === 'string' ? u.difference : undefined;
    if (!recording && !difference) continue;
    out.push({
      node: e.node,
      attempt: e.attempt,
      ...(recording ? { recording } : {}),
      ...(difference ? { difference } : {}),
    });
  }
  return out;
}

/** Where a recording is kept, in words: its path, and on GitHub the workflow artifact that holds it. */
export function recordingWhere(r: NonNullable<MeteredAttempt['recording']>): string {
  const a = r.artifact;
  return `${r.path}${a ? ` (in the artifact "${a.name}" of workflow run ${a.workflow_run_id})` : ''}`;
}

/** Lines for `interlock status`: each metered attempt's recording and difference; empty when there is none. */
export function meteredLines(events: readonly JournalEvent[], runId: string): string[] {
  const lines: string[] = [];
  for (const m of meteredAttempts(events)) {
    const r = m.recording;
    if (r)
      lines.push(
        `  ${m.node} attempt ${m.attempt}: ${r.calls} call${r.calls === 1 ? '' : 's'} kept in ${recordingWhere(r)}, sha256 ${r.sha256.slice(0, 12)}…; ${replayCommand(runId, m.node, m.attempt)}`,
      );
    if (m.difference)
      lines.push(`  ${m.node} attempt ${m.attempt}: metered differs from reported: ${m.difference}`);
  }
  return lines.length ? ['model calls (what the key proxy metered and kept of each attempt):', ...lines] : [];
}
