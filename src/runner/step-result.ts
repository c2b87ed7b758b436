/**
 * What a step did, in words for people: the result of a decision that ran nothing (ended, blocked, skipped,
 * completed, a failed pre-check) and of an attempt whose result was recorded. Pure.
 */

import type { GraphNode } from '../graph/model.js';
import type { AttemptOutcome, Decision, ResultDecision } from '../protocol/decide.js';
import { afterInterruptionOf } from '../render/recovery-words.js';
import type { RunSnapshot } from './journal-io/read.js';

export type StepResult =
  | {
      kind: 'recorded' | 'failed' | 'escalated';
      node: string;
      attempt: number;
      cur: RunSnapshot;
      message: string;
      /** Set when the node asked for was completed before this step, which ran nothing. */
      already?: true;
    }
  | { kind: 'skipped' | 'awaiting-approval'; node: string; cur: RunSnapshot; message: string }
  | { kind: 'run-completed' | 'ended' | 'blocked' | 'stale'; cur: RunSnapshot; message: string }
  /** A `for_each` node's list journaled, or its instances joined (issue 28): the run goes on. */
  | { kind: 'expanded' | 'joined'; node: string; cur: RunSnapshot; message: string };

/** The result of a step whose decision dispatched nothing. */
export function decisionResult(
  decision: Exclude<Decision, { kind: 'dispatch' }>,
  cur: RunSnapshot,
): StepResult {
  switch (decision.kind) {
    case 'ended':
      return { kind: 'ended', cur, message: `the run has ended (${decision.status}: ${decision.reason})` };
    case 'blocked':
      return { kind: 'blocked', cur, message: decision.reason };
    case 'complete':
      return { kind: 'run-completed', cur, message: 'run completed: every node completed or skipped' };
    case 'skip':
      return {
        kind: 'skipped',
        node: decision.node,
        cur,
        message: `skipped "${decision.node}": no execute_condition was true`,
      };
    case 'budget-escalated':
      return {
        kind: 'escalated',
        node: decision.node,
        attempt: decision.attempt,
        cur,
        message: `"${decision.node}" escalated instead of dispatched: ${decision.reason}`,
      };
    case 'awaiting-approval':
      return {
        kind: 'awaiting-approval',
        node: decision.node,
        cur,
        // The command that approves it is the face's to say (src/render/next-commands.ts).
        message: `"${decision.node}" awaits approval before it runs`,
      };
    case 'expand':
      return {
        kind: 'expanded',
        node: decision.node,
        cur,
        message: cur.state.nodes.get(decision.node)?.expansion?.children
          ? `expanded "${decision.node}" into its sub-graph: ${instanceList(cur, decision.node)}`
          : `expanded "${decision.node}" into ${decision.items} instance(s): ${instanceList(cur, decision.node)}`,
      };
    case 'expand-failed':
      return {
        kind: 'escalated',
        node: decision.node,
        attempt: decision.attempt,
        cur,
        message: `"${decision.node}" could not be expanded: ${decision.reason}; escalated: it needs a person`,
      };
    case 'join':
      return {
        kind: 'joined',
        node: decision.node,
        cur,
        message: `joined "${decision.node}"${decision.tolerated.length ? `, tolerating ${decision.tolerated.join(', ')}` : cur.state.nodes.get(decision.node)?.expansion?.children ? ': every node of its sub-graph completed' : ': every instance completed'}`,
      };
    case 'precheck-failed': {
      const esc = decision.events.some((e) => e.type === 'NodeEscalated');
      const why = decision.events.flatMap((e) =>
        e.type === 'NodeFailed' ? e.failures.map((f) => f.message) : [],
      );
      return {
        kind: esc ? 'escalated' : 'failed',
        node: decision.node,
        attempt: decision.attempt,
        cur,
        message: `"${decision.node}" failed its pre-check: ${why.join('; ')}`,
      };
    }
  }
}

/** An expanded node's instances or child nodes, named (the first 10, then a count). */
function instanceList(cur: RunSnapshot, node: string): string {
  const made = cur.state.nodes.get(node)?.expansion;
  const ids = made?.children ?? (made?.keys ?? []).map((k) => `${node}[${k}]`);
  return `${ids.slice(0, 10).join(', ')}${ids.length > 10 ? ` and ${ids.length - 10} more` : ''}`;
}

/** The result of an attempt, once its result decision was written (or found stale). */
export function outcomeResult(r: {
  node: string;
  attempt: number;
  outcome: AttemptOutcome;
  decision: ResultDecision;
  cur: RunSnapshot;
}): StepResult {
  const { node, attempt, outcome, decision, cur } = r;
  if (decision.kind === 'stale') return { kind: 'stale', cur, message: decision.reason };
  const secs = (outcome.usage.wall_ms / 1000).toFixed(1);
  if (decision.recorded) {
    const recorded = `"${node}" attempt ${attempt} recorded in ${secs}s: ${outcome.evidence.length} check(s) passed`;
    return {
      kind: decision.escalated ? 'escalated' : 'recorded',
      node,
      attempt,
      cur,
      message: `${recorded}${loopWords(decision.events)}`,
    };
  }
  // The decision's failures: those of the outcome and those it added (over the node's budget).
  const failed = decision.events.find((e) => e.type === 'NodeFailed');
  const failures = failed?.type === 'NodeFailed' ? failed.failures : outcome.failures;
  const why = failures
    .map((f) => `${f.check}: ${f.message}${typeof f.log === 'string' ? ` (whole output: ${f.log})` : ''}`)
    .join('; ');
  return {
    kind: decision.escalated ? 'escalated' : 'failed',
    node,
    attempt,
    cur,
    message: `"${node}" attempt ${attempt} failed in ${secs}s (${why})${decision.escalated ? '; escalated: it needs a person' : '; it will be retried'}`,
  };
}

/** A step for a node that is already completed reports what it recorded and runs nothing. */
export function alreadyCompleted(r: StepResult, wanted: string | undefined): StepResult {
  const mine = wanted ? r.cur.state.nodes.get(wanted) : undefined;
  if (r.kind !== 'blocked' || mine?.state !== 'completed') return r;
  // Re-running a workflow resumes where the run stands: a completed node only reports what it recorded.
  return {
    kind: 'recorded',
    node: wanted!,
    attempt: mine.attempts,
    cur: r.cur,
    message: `"${wanted}" was already completed (attempt ${mine.attempts}); nothing to do`,
    already: true,
  };
}

/** What a loop's `until` decided after a record (issue 28): the next cycle, or the loop's escalation; else nothing. */
function loopWords(events: ResultDecision['events']): string {
  for (const e of events) {
    if (e.type === 'NodeCycleStarted') return `; repeat.until is false: cycle ${e.cycle} starts`;
    if (e.type === 'NodeEscalated' && e.report.cycles)
      return `; repeat.until is still ${e.report.cycles.at(-1)?.until} after cycle ${e.report.cycles.at(-1)?.cycle}: escalated, it needs a person`;
  }
  return '';
}

/** What a step says of an attempt that ran but whose result could not be stored in the journal at `location`. */
export function unstoredResult(
  location: string,
  d: { node: { id: string; replay: GraphNode['replay'] }; attempt: number },
  outcome: AttemptOutcome,
  why: string,
): string {
  const result = outcome.failures.length
    ? `it failed: ${outcome.failures.map((f) => `${f.check}: ${f.message}`).join('; ')}`
    : outcome.evidence.length
      ? `${outcome.evidence.length} check(s) passed`
      : 'it succeeded';
  return `"${d.node.id}" attempt ${d.attempt} ran (${result}) but its result could not be stored (${why}). The journal at ${location} is intact and shows the node in flight, dispatched by this job; this job's post step, or the next step's recovery, marks it interrupted (${afterInterruptionOf(d.node.replay)}).`;
}
