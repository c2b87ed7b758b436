/**
 * The one check every approval passes, whether it opens a gate (`/approve`), a hold (`/approve-rerun`) or reruns
 * from a node (`/rerun-from`): it is bound to the graph hash the run is under, a delivery (a comment's URL)
 * approves once (`approval_sources`), the person who started the run cannot approve it under
 * `prevent_self_approval`, guidance is bounded, and one person counts once. Pure.
 */

import { MAX_GUIDANCE_CHARS } from '../../journal/events/gates.js';
import type { RunState } from '../../journal/state.js';

/** Why `by` may not approve as the person who started the run, or null. */
export function selfApprovalRefusal(
  state: RunState,
  req: { by: string; prevent_self_approval?: boolean | undefined },
): string | null {
  const starter = state.started?.started_by;
  if (!req.prevent_self_approval || !starter || starter.toLowerCase() !== req.by.toLowerCase()) return null;
  return `@${req.by} started this run and cannot approve it (prevent_self_approval): another person must approve`;
}

/** Why the guidance cannot be recorded (over its bound), or null. */
export function guidanceRefusal(guidance: string | undefined): string | null {
  if (guidance === undefined || [...guidance].length <= MAX_GUIDANCE_CHARS) return null;
  return `the guidance is ${[...guidance].length} characters long, over ${MAX_GUIDANCE_CHARS}: shorten it and approve again (nothing was recorded)`;
}

/** A source that is a URL names one comment or one delivery: it approves at most once per run. */
export function isDeliverySource(source: string): boolean {
  return /^https?:\/\//.test(source);
}

/** What every approval names: the person, where it came from and the graph it was given under. */
export interface ApprovalTerms {
  by: string;
  source: string;
  /** The graph hash the approver acted under: an approval under another graph is refused. */
  graph_hash: string;
  prevent_self_approval?: boolean | undefined;
  guidance?: string | undefined;
}

/** Who approved what the approval counts towards so far, and how many must: one person counts once. */
interface ApprovalCount {
  /** The thing approved, in words: `"deploy"`, `attempt 2 of "deploy"`. */
  what: string;
  approvers: readonly string[];
  required: number;
}

/** Why this approval is refused, or null: the checks shared by gates, reruns and rerun-from, in one order. */
export function approvalRefusal(state: RunState, req: ApprovalTerms, count?: ApprovalCount): string | null {
  // A request built from untyped input may lack the hash: it is refused, never taken as "any graph".
  if (typeof req.graph_hash !== 'string' || !req.graph_hash)
    return 'the approval names no graph hash, so it cannot be bound to the graph the run is under: ask again';
  if (req.graph_hash !== state.accepted_hash)
    return `the graph changed since this approval was asked for (${req.graph_hash} → ${state.accepted_hash})`;
  if (isDeliverySource(req.source) && state.approval_sources.includes(req.source))
    return `this approval (${req.source}) is already in the journal: one comment approves once`;
  const refusal = selfApprovalRefusal(state, req) ?? guidanceRefusal(req.guidance);
  if (refusal) return refusal;
  if (count?.approvers.includes(req.by))
    return `${req.by} has already approved ${count.what} (${count.approvers.length} of ${count.required} approvals): another person must approve`;
  return null;
}
