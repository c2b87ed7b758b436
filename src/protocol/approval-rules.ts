/**
 * Rules every approval shares, whether it opens a gate (`/approve`) or a hold (`/approve-rerun`): the person who
 * started the run cannot approve it under `prevent_self_approval`, and guidance is bounded. Pure.
 */

import { MAX_GUIDANCE_CHARS } from '../journal/gate-events.js';
import type { RunState } from '../journal/state.js';

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
