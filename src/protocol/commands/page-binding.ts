/**
 * What a form of the maintainers' page is bound to (issue 37): the node, why it waited, the attempt and the graph
 * hash the page showed. A page older than the journal (a newer attempt, another approval state, a changed graph,
 * an ended run) is refused as out of date rather than acting on something the person did not see. Pure.
 */
import type { RunState } from '../../journal/state.js';
import { waitingAttempt } from '../../journal/state.js';

export type PageWait = 'gate' | 'held' | 'escalated';

export interface PageBinding {
  node: string;
  waits: PageWait;
  attempt: number;
  graphHash: string;
}

const STATE_OF: Record<PageWait, string> = {
  gate: 'awaiting_approval',
  held: 'held',
  escalated: 'escalated',
};

/** Why the page is out of date for this run, or null when the journal still shows what the page showed. */
export function pageOutOfDate(state: RunState, b: PageBinding): string | null {
  const stale = (what: string) => `this page is out of date: ${what}; reload it and look again`;
  if (state.checkpoint.ended) return stale(`the run has ended (${state.checkpoint.ended.type})`);
  if (state.accepted_hash !== b.graphHash) return stale('the run goes on under another graph since');
  const p = state.nodes.get(b.node);
  if (!p) return stale(`"${b.node}" is no longer a node of the run`);
  if (p.state !== STATE_OF[b.waits])
    return stale(
      `"${b.node}" is ${p.state.replace('_', ' ')} now, no longer ${STATE_OF[b.waits].replace('_', ' ')}`,
    );
  const attempt = b.waits === 'gate' ? p.attempts : waitingAttempt(p);
  if (attempt !== b.attempt) return stale(`"${b.node}" waits on attempt ${attempt} now, not ${b.attempt}`);
  return null;
}
