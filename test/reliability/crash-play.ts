/**
 * What happens in a crash scenario, face by face the same: the process dies at the boundary, then people and
 * steps carry the run on as they would after a real crash, and each answer is checked as it comes. The faces
 * (crash-cli.ts, crash-action.ts, crash-app.ts) supply a `Driver`; this file owns the order of things.
 */
import type { Ack } from './crash-check.js';
import { interrupts, landed } from './crash-expect.js';
import { NODES, type Scenario, target, targetNode } from './crash-model.js';

/** What a person does: approve a gated node, approve a rerun (or raise a budget), settle, or fail the run. */
export type Verb = 'approve' | 'approve-rerun' | 'settle' | 'fail-run' | 'rerun-from';
/** A first approval, the same one again (re-run, redelivered), or a new one (a new comment, another person). */
export type Delivery = 'first' | 'again' | 'other';

/** How a face runs the pieces of a scenario; each call records what it saw in the trail. */
export interface Driver {
  /** A `node: all` step (or `run --all`) that must die at the failpoint. */
  crashAt(failpoint: string): Promise<void>;
  /** A `node: all` step whose target's command hangs, SIGKILLed with the command. */
  killMidCommand(): Promise<void>;
  /** The killed step's recovery: the CLI's `recover`, the Action's post step (with a failpoint, it dies there). */
  recoverAfterKill(failpoint?: string): Promise<void>;
  /** A whole `node: all` step, to where the run waits or ends. */
  step(label: string): Promise<void>;
  /** Recovery on its own (`recover`, `mode: recover`). */
  recover(label: string): Promise<void>;
  /** A person's decision; true when it was applied (written), false when refused or ignored. */
  person(label: string, verb: Verb, opts: { delivery: Delivery; failpoint?: string }): Promise<boolean>;
  /** The last step: the run must end completed. */
  finish(): Promise<void>;
}

/** What both faces keep while a scenario runs. */
export class Trail {
  readonly snapshots: Array<{ after: string; text: string | undefined }> = [];
  readonly acks: Ack[] = [];
  readonly problems: string[] = [];
  processes = 0;
  expect(ok: boolean, what: string, output?: string): void {
    if (!ok)
      this.problems.push(
        `${what}${output ? `\n    ${output.trim().split('\n').slice(-6).join('\n    ')}` : ''}`,
      );
  }
}

/** The failpoint a `node: all` step dies at for the scenario's boundary (narrowed to the target, or counted). */
export function stepFailpoint(s: Scenario): string {
  const t = target(s);
  const b = s.boundary;
  if (b.startsWith('check-run:')) {
    // The n-th write of the step dispatches the target: a create only at the first, updates after it.
    const n = b.endsWith('-update') ? s.position : b.endsWith('-create') ? 1 : s.position + 1;
    return `${b}#${n}`;
  }
  // The expansion's write names the for_each node itself, not its instance.
  if (b.startsWith('expand:'))
    return `${b === 'expand:before-write' ? 'before' : 'after'}-expand-write@${targetNode(s)}`;
  // So does its join's.
  if (b.startsWith('join:'))
    return `${b === 'join:before-write' ? 'before' : 'after'}-join-write@${targetNode(s)}`;
  // A serialized chain's writes and call are its first node's, wherever the target is in it.
  const chained: Record<string, string> = {
    'serialized:before-write': 'before-dispatch-write',
    'serialized:after-write': 'after-dispatch-write',
    'serialized:before-record-write': 'before-record-write',
    'serialized:after-record-write': 'after-record-write',
  };
  if (chained[b]) return `${chained[b]}@${NODES[0]}`;
  const named: Record<string, string> = {
    'session:before-handover-write': 'before-chain-write',
    'session:after-handover-write': 'after-chain-write',
    'stop:after-stop': 'after-budget-stop',
    'stop:after-record-write': 'after-record-write',
    'chain:before-write': 'before-chain-write',
    'chain:after-write': 'after-chain-write',
    'gate:before-await-write': 'before-gate-write',
    'gate:after-await-write': 'after-gate-write',
    'gate:before-dispatch-write': 'before-dispatch-write',
    'gate:after-dispatch-write': 'after-dispatch-write',
    'budget:before-escalate-write': 'before-escalate-write',
    'budget:after-escalate-write': 'after-escalate-write',
    // The write that records a loop's cycle 1 also starts cycle 2 and, in `node: all`, dispatches it.
    'loop:before-cycle-write': 'before-record-write',
    'loop:after-cycle-write': 'after-record-write',
  };
  return `${named[b] ?? b}@${t}`;
}

const personCommandFailpoint = (s: Scenario) =>
  landed(s) ? 'after-person-command-write' : 'before-person-command-write';

/** A person's decision that must be applied. */
async function must(d: Driver, t: Trail, label: string, verb: Verb): Promise<void> {
  t.expect(await d.person(label, verb, { delivery: 'first' }), `${label}: ${verb} was not applied`);
}

/**
 * The killed approval, then what follows it: the same approval again or a new one is applied exactly when the
 * killed one had not landed; with `both` (the App), the redelivery first, then a new comment, which finds it done.
 */
async function killedApproval(d: Driver, t: Trail, s: Scenario, verb: Verb): Promise<void> {
  const killedApplied = await d.person(`${verb} (killed)`, verb, {
    delivery: 'first',
    failpoint: personCommandFailpoint(s),
  });
  t.expect(!killedApplied, `${verb} was not killed at ${personCommandFailpoint(s)}`);
  const follows: Delivery[] = s.follow === 'both' ? ['again', 'other'] : [s.follow as Delivery];
  let done = landed(s);
  for (const delivery of follows) {
    const applied = await d.person(`${verb} ${delivery}`, verb, { delivery });
    t.expect(
      applied === !done,
      `${verb} delivered ${delivery === 'again' ? 'again' : 'anew'} was ${applied ? '' : 'not '}applied; the killed one ${landed(s) ? 'had' : 'had not'} landed`,
    );
    done ||= applied;
  }
}

/** After the target's first attempt was interrupted (or not): a person settles it, or the run simply goes on. */
async function afterInterruption(d: Driver, t: Trail, s: Scenario): Promise<void> {
  if (s.follow === 'approve-rerun' || s.follow === 'settle') {
    await d.recover('recover');
    const applied = await d.person(s.follow, s.follow, { delivery: 'first' });
    t.expect(
      applied === interrupts(s),
      `${s.follow} was ${applied ? '' : 'not '}applied (held: ${interrupts(s)})`,
    );
  } else if (s.follow === 'recover-then-run') await d.recover('recover');
}

/** The plain node: its own boundaries, the chained write, recovery, the post step, and the approval of a rerun. */
async function plain(d: Driver, t: Trail, s: Scenario): Promise<void> {
  const b = s.boundary;
  if (b.endsWith('mid-command') || b.startsWith('approval:')) await d.killMidCommand();
  else if (b === 'post-step' || b.startsWith('recovery:')) {
    await d.killMidCommand();
    await d.recoverAfterKill(b === 'post-step' ? undefined : b.slice('recovery:'.length));
  } else await d.crashAt(stepFailpoint(s));
  if (b.startsWith('approval:')) {
    await d.recover('recover');
    await killedApproval(d, t, s, 'approve-rerun');
  } else await afterInterruption(d, t, s);
}

/**
 * A node stopped for people: the gate (`NodeAwaitingApproval`, then `/approve`) or a budget (`NodeEscalated`,
 * then the raise, an `approve-rerun`). The write that stops it, the approval, and the step after it.
 */
async function stopped(d: Driver, t: Trail, s: Scenario, verb: 'approve' | 'approve-rerun'): Promise<void> {
  const b = s.boundary;
  const label = verb === 'approve' ? 'to the gate' : 'to the escalation';
  if (/-(await|escalate)-write$/.test(b)) {
    await d.crashAt(stepFailpoint(s));
    await d.step(label);
    await must(d, t, s.follow, s.follow === 'fail-run' ? 'fail-run' : verb);
    return;
  }
  await d.step(label);
  if (/-(approve|raise)-write$/.test(b)) return killedApproval(d, t, s, verb);
  await must(d, t, verb, verb);
  if (b.endsWith('mid-command')) await d.killMidCommand();
  else await d.crashAt(stepFailpoint(s));
  await afterInterruption(d, t, s);
}

/** The App: a gate awaiting `/approve`, or a node held after a kill mid-command, for `/approve-rerun` or `/settle`. */
async function app(d: Driver, t: Trail, s: Scenario): Promise<void> {
  if (s.feature === 'gate' || s.feature === 'guidance') {
    await d.step('to the gate');
    return killedApproval(d, t, s, 'approve');
  }
  await d.killMidCommand();
  await d.recover('recover');
  await killedApproval(d, t, s, s.boundary.includes('-settle-') ? 'settle' : 'approve-rerun');
}

/** A loop's next cycle (issue 28): the write that starts it dies, or its command is killed; then as after any interruption. */
async function loop(d: Driver, t: Trail, s: Scenario): Promise<void> {
  if (s.boundary === 'loop:mid-command') await d.killMidCommand();
  else await d.crashAt(stepFailpoint(s));
  await afterInterruption(d, t, s);
}

/**
 * A rerun from a node (issue 28): the target's command killed and recovered, then `rerun-from` the node before it
 * dies around its write and is given again or anew; a `replay: never` target is held by the rerun, so a person
 * approves its new attempt.
 */
async function rerun(d: Driver, t: Trail, s: Scenario): Promise<void> {
  await d.killMidCommand();
  await d.recover('recover');
  await killedApproval(d, t, s, 'rerun-from');
  if (s.replay === 'never') await must(d, t, 'approve-rerun after the rerun', 'approve-rerun');
}

/** Plays the scenario through the driver, then finishes the run (a failed run is finished already). */
export async function play(d: Driver, t: Trail, s: Scenario): Promise<void> {
  if (s.face === 'app') await app(d, t, s);
  else if (s.feature === 'loop') await loop(d, t, s);
  else if (s.feature === 'rerun') await rerun(d, t, s);
  else if (s.feature === 'gate' || s.feature === 'guidance') await stopped(d, t, s, 'approve');
  else if (s.feature === 'budget') await stopped(d, t, s, 'approve-rerun');
  else await plain(d, t, s);
  if (s.follow !== 'fail-run') await d.finish();
}
