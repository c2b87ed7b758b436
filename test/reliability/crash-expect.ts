/**
 * What each crash scenario must leave behind, derived from its boundary and what follows it: the target's side
 * effects, how often the other nodes run, the approvals and settlements recorded, and how the run ends. Pure.
 */
import { NODES, rerunFromNode, type Scenario, target } from './crash-model.js';

const has = (s: Scenario, ...parts: string[]) => parts.some((p) => s.boundary.includes(p));

/** The write the scenario dies around is lost: nothing of it landed. */
export function writeLost(s: Scenario): boolean {
  return /before-(dispatch|read|create|update|write)|chain:before|before-handover/.test(s.boundary);
}

/** A serialized chain's call ran before the crash (each node of it ran its first attempt). */
const chainCallRan = (s: Scenario) => has(s, 'serialized:mid-command', 'serialized:before-record-write');

/** Whether the target's first attempt is left in flight with its executor gone. */
export function interrupts(s: Scenario): boolean {
  const b = s.boundary;
  if (
    b === 'before-dispatch-write' ||
    b.endsWith(':after-record-write') ||
    b === 'after-record-write' ||
    b.startsWith('expand:') ||
    b.startsWith('join:')
  )
    return false;
  if (s.feature === 'serialized') return b !== 'serialized:before-write';
  if (b.includes('handover')) return !writeLost(s);
  if (s.feature === 'gate' || s.feature === 'guidance' || s.feature === 'budget')
    return b === 'gate:after-dispatch-write' || b === 'gate:mid-command' || b === 'budget:mid-command';
  if (s.face === 'app') return true; // /approve-rerun and /settle act on a node held after a kill mid-command
  if (b.startsWith('check-run:') || b.startsWith('chain:')) return !writeLost(s);
  return true;
}

/** Whether the target's first attempt started its command before the crash. */
export function commandRan(s: Scenario): boolean {
  if (!interrupts(s)) return false;
  return !has(s, 'after-dispatch-write', 'chain:', 'check-run:', 'serialized:after-write', 'handover');
}

/** The approval that starts the target (gate: `approve`; budget: the raise, an `approve-rerun`), if any. */
export function opening(s: Scenario): 'approve' | 'approve-rerun' | null {
  if (s.follow === 'fail-run') return null;
  if (s.feature === 'gate' || s.feature === 'guidance') return 'approve';
  if (s.feature === 'budget') return 'approve-rerun';
  return null;
}

/** What a person does about the held target after its interruption: approve a rerun, settle it, or nothing. */
export function personActs(s: Scenario): 'approve-rerun' | 'settle' | null {
  if (s.replay !== 'never' || !interrupts(s) || s.feature === 'rerun') return null;
  if (s.face === 'app') return has(s, '-settle-') ? 'settle' : 'approve-rerun';
  if (s.boundary.startsWith('approval:')) return 'approve-rerun';
  return s.follow === 'approve-rerun' || s.follow === 'settle' ? s.follow : null;
}

/** How the run ends. */
export const endStatus = (s: Scenario): 'completed' | 'failed' =>
  s.follow === 'fail-run' ? 'failed' : 'completed';

/**
 * How many times a node other than the target runs its command: once; never after a target whose run failed; and
 * twice for the node before the target when the write that records it (and dispatches the target) is lost, since
 * that node (`replay: safe` here) is recovered and runs again.
 */
export function expectedOtherRuns(s: Scenario, id: string): number {
  const i = NODES.indexOf(id as (typeof NODES)[number]);
  if (s.follow === 'fail-run' && i > s.position) return 0;
  // A rerun from the node before the target runs that node again (issue 28).
  if (s.feature === 'rerun' && s.position > 0 && id === rerunFromNode(s)) return 2;
  // A serialized chain: every node ran in the call that was cut short, and again alone after; a node after a
  // target that failed once was given back, and runs again alone.
  if (s.feature === 'serialized') {
    if (chainCallRan(s)) return 2;
    if (s.boundary === 'serialized:after-write') return 1;
    return i > s.position && s.outcome === 'fail-once' ? 2 : 1;
  }
  const chainedLost = s.position > 0 && writeLost(s) && has(s, 'chain:', 'check-run:', 'handover');
  return chainedLost && i === s.position - 1 ? 2 : 1;
}

/** The target's side-effect lines the scenario must leave, exactly: `<node> <attempt>` in order. */
export function expectedTargetLines(s: Scenario): string[] {
  const t = target(s);
  if (s.follow === 'fail-run') return [];
  if (s.feature === 'loop') return loopLines(s);
  // Killed mid-command, then rerun: its new attempt (after a person's approval when it is never).
  if (s.feature === 'rerun') return [`${t} 1`, `${t} 2`];
  const once = s.outcome === 'fail-once';
  if (!interrupts(s)) return once ? [`${t} 1`, `${t} 2`] : [`${t} 1`];
  const first = commandRan(s) ? [`${t} 1`] : [];
  if (s.replay === 'safe') return [...first, `${t} 2`];
  // never: held; only a person's approval runs it again, and a settlement records it without running it.
  return personActs(s) === 'settle' ? first : [...first, `${t} 2`];
}

/**
 * A loop's lines (issue 28): cycle 1 is attempt 1. Its record lost, attempt 2 redoes cycle 1 and attempt 3 is
 * cycle 2; its record landed with cycle 2 dispatched (attempt 2, which never began), attempt 3 is cycle 2; cycle
 * 2 killed mid-command (attempt 2), attempt 3 redoes it. A settlement ends the loop instead of the next attempt.
 */
function loopLines(s: Scenario): string[] {
  const t = target(s);
  const settles = personActs(s) === 'settle';
  const lines = (...attempts: number[]) => attempts.map((a) => `${t} ${a}`);
  if (s.boundary === 'loop:before-cycle-write') return settles ? lines(1) : lines(1, 2, 3);
  if (s.boundary === 'loop:mid-command') return settles ? lines(1, 2) : lines(1, 2, 3);
  return settles ? lines(1) : lines(1, 3);
}

/** How many cycles a loop scenario starts: cycle 2 once, unless cycle 1 was settled before its record landed. */
export function expectedCycles(s: Scenario): number {
  return s.boundary === 'loop:before-cycle-write' && personActs(s) === 'settle' ? 0 : 1;
}

/** How many of each approval event the target must end with. */
export function expectedApprovals(s: Scenario): { NodeApproved: number; RerunApproved: number } {
  const open = opening(s);
  return {
    NodeApproved: open === 'approve' ? 1 : 0,
    RerunApproved:
      (open === 'approve-rerun' ? 1 : 0) +
      (personActs(s) === 'approve-rerun' ? 1 : 0) +
      // A rerun carries no approval over: a never target's new attempt is approved again.
      (s.feature === 'rerun' && s.replay === 'never' ? 1 : 0),
  };
}

/** Whether the killed approval (or settlement) had landed before the process died. */
export const landed = (s: Scenario) => s.boundary.includes('after-');
