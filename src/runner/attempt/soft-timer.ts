/** A node's soft timeout (issue 26): told once when an attempt passes it; the attempt goes on. */
import type { GraphNode } from '../../graph/model.js';
import type { AttemptSetup } from './attempt.js';

/** A soft bound an attempt passed: which, its value, and what the attempt had used (minutes, or turns). */
export interface Overdue {
  bound: 'soft_timeout_minutes' | 'soft_turns';
  limit: number;
  observed: number;
}

/** Calls `overdue` once the node's soft timeout passes; the returned function cancels it. */
export function softTimer(setup: Pick<AttemptSetup, 'overdue'>, node: GraphNode): () => void {
  const limit = node.soft?.timeout_minutes;
  if (limit === undefined || !setup.overdue) return () => {};
  const started = Date.now();
  const t = setTimeout(() => {
    const observed = Math.round(((Date.now() - started) / 60_000) * 100) / 100;
    setup.overdue?.({ bound: 'soft_timeout_minutes', limit, observed });
  }, limit * 60_000);
  return () => clearTimeout(t);
}
