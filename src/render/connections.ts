/** What each attempt of a node with `network:` connected to, in lines for `interlock status` (from the journal). */
import type { Journal } from '../journal/events/events.js';
import { connectionWords } from '../protocol/attempt/egress.js';

/** One line per attempt that journaled its connections; empty when no node has `network:`. */
export function connectionLines(journal: Journal): string[] {
  const lines: string[] = [];
  for (const e of journal.events) {
    if ((e.type !== 'NodeRecorded' && e.type !== 'NodeFailed') || !e.connections) continue;
    lines.push(`  ${e.node} attempt ${e.attempt}: ${connectionWords(e.connections)}`);
  }
  return lines.length ? ['network (what each attempt asked the egress proxy for):', ...lines] : [];
}
