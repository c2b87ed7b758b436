/**
 * What a journal shows waiting for a person, read from its events alone, for a face that cannot fold it (its
 * graph file is gone, or the path it names is refused) and still lists what waits in it, beside the one line
 * that says how to read it whole. A node waits when its last event (a soft bound passed, `NodeOverdue`, changes
 * nothing) escalated it, asked for its approval, or interrupted it (held, unless its graph retries it: only the
 * fold knows).
 * An ended run waits for nobody. Pure.
 */
import type { Journal } from './events/events.js';

const WAITS: Readonly<Record<string, string>> = {
  NodeEscalated: 'escalated',
  NodeAwaitingApproval: 'awaiting approval',
  NodeInterrupted: 'interrupted',
};

/** Each node that waits, in the order it came to wait: `a (escalated)`. */
export function waitingUnfolded(journal: Journal): string[] {
  const last = new Map<string, string>();
  for (const e of journal.events) {
    if (e.type === 'RunCompleted' || e.type === 'RunFailed') return [];
    if (!('node' in e) || typeof e.node !== 'string' || e.type === 'NodeOverdue') continue;
    last.delete(e.node);
    last.set(e.node, e.type);
  }
  return [...last].filter(([, type]) => WAITS[type]).map(([node, type]) => `${node} (${WAITS[type]})`);
}

/** The problem line of a run a face cannot fold: what waits in it, then why and the fix (`why`). */
export function unreadableRun(journal: Journal | null, why: string): string {
  const waiting = journal ? waitingUnfolded(journal) : [];
  return waiting.length ? `waits for a person: ${waiting.join(', ')}; ${why}` : why;
}
