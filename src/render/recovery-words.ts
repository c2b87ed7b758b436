/**
 * What recovery did, in the one wording every face uses (the step's log, `mode: plan`/`recover`, the post step,
 * `mode: stuck`, `interlock recover`, and a store failure's message): a node interrupted, and what follows from
 * rule 3 (a `replay: never` node is held for a person, a `replay: safe` one runs again). Pure.
 */
import type { RunState } from '../journal/state.js';

/** What follows an interruption: held for a person, or run again. */
function afterInterruption(held: boolean): string {
  return held ? 'held until a person approves a rerun or settles it' : 'replay: safe, it runs again';
}

/** What follows when a node of this `replay` is interrupted (for a message written before recovery ran). */
export function afterInterruptionOf(replay: string): string {
  return afterInterruption(replay !== 'safe');
}

/**
 * One node recovery marked interrupted, as the state now shows it: `"build" attempt 2 was interrupted; replay:
 * safe, it runs again`. `how` says in what circumstances (the default: plainly interrupted).
 */
export function recoveryWords(
  state: RunState,
  node: string,
  opts: { attempt?: number; how?: string } = {},
): string {
  const attempt = opts.attempt !== undefined ? ` attempt ${opts.attempt}` : '';
  const held = state.nodes.get(node)?.state === 'held';
  return `"${node}"${attempt} ${opts.how ?? 'was interrupted'}; ${afterInterruption(held)}`;
}
