/**
 * What a person reads about a node in flight, from this machine's processes: who runs it, or, after the CLI that
 * ran it was killed, which of its processes still run and what to do (wait for them or end them, then recover).
 * Printed by `status`, `run` and `recover`, so that "running" never stands alone.
 */
import type { RunnerInfo } from '../journal/events/fields.js';
import type { DispatchInfo } from '../journal/state.js';
import { recoverCommand } from '../render/next-commands.js';
import type { RunSnapshot } from '../runner/journal-io/read.js';
import { probeLocal } from '../runner/recovery/liveness.js';

const by = (r: RunnerInfo) =>
  r.kind === 'local' && r.pid !== undefined ? `interlock pid ${r.pid}` : `a ${r.kind} runner`;

/** One line (two with the command) for each node in flight. */
export function inFlightLines(cur: RunSnapshot, journal?: string): string[] {
  const run = { runId: cur.state.checkpoint.run_id, journal };
  const lines: string[] = [];
  for (const n of cur.state.checkpoint.active_nodes) {
    const d: DispatchInfo | undefined = cur.state.nodes.get(n)?.dispatch;
    if (!d) continue;
    const at = `in flight: ${n} (attempt ${d.attempt}, dispatched ${d.at})`;
    const p = probeLocal(d, { assumeDead: false });
    if (p.running?.length) {
      const pids = p.running.join(' ');
      lines.push(
        `${at}: ${by(d.runner)}, which ran it, exited, and its command still runs (pid ${p.running.join(', ')}). Wait for it to end, or end it (kill ${pids}), then:`,
        `  ${recoverCommand(run)}   # marks the attempt interrupted`,
      );
    } else if (p.gone) {
      lines.push(
        `${at}: ${p.why} and none of its processes runs. Mark it interrupted:`,
        `  ${recoverCommand(run)}   # or run the graph again, which recovers first`,
      );
    } else lines.push(`${at}: ${p.why}; it goes on there`);
  }
  return lines;
}
