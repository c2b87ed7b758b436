/**
 * The crash matrix: every boundary where a process can die, crossed with the face and its store, the feature the
 * graph exercises (plain, the gate, the gate with guidance, a budget escalation), the replay rule, the node's place
 * in the graph, what a person does next, and the command's outcome. Pure: the scenarios, and which values each
 * boundary crosses with (a value that would run the same path twice is left out, so every scenario is distinct).
 * The graphs are in crash-graphs.ts, what each scenario must leave in crash-expect.ts.
 */
import { FAILPOINTS, type Failpoint } from '../../src/os/crash-failpoint.js';

export type Face = 'cli' | 'action' | 'app';
export type Store = 'file' | 'git' | 'check-run';
/** `serialized`, `session` and `stop` run prompt nodes with an engine (a stand-in for Claude Code, crash-graphs.ts). */
export type Feature =
  | 'plain'
  | 'gate'
  | 'guidance'
  | 'budget'
  | 'for_each'
  | 'subgraph'
  | 'loop'
  | 'rerun'
  | 'serialized'
  | 'session'
  | 'stop';
export type Replay = 'never' | 'safe';
export type Outcome = 'pass' | 'fail-once';
export type Position = 0 | 1 | 2;

/** Where the process dies. Failpoint names are the ones src/os/crash-failpoint.ts knows. */
export const STEP_BOUNDARIES = [
  'before-dispatch-write',
  'after-dispatch-write',
  'mid-command',
  'after-command',
  'before-record-write',
  'after-record-write',
] as const;
/** `node: all`'s one write that records the node before the target and dispatches the target (positions b, c). */
export const CHAIN_BOUNDARIES = ['chain:before-write', 'chain:after-write'] as const;
/** The CLI's `recover` or the Action's post step dies while marking the killed attempt interrupted. */
export const RECOVERY_BOUNDARIES = ['recovery:before-recover-write', 'recovery:after-recover-write'] as const;
/** The approval of a held node (CLI approve-rerun, or the Action's `mode: comment`) dies around its write. */
export const APPROVAL_BOUNDARIES = [
  'approval:before-person-command-write',
  'approval:after-person-command-write',
] as const;
/**
 * The gate before the target: the step writing `NodeAwaitingApproval`, the person's `/approve` (CLI `approve`,
 * `mode: comment`), and the step dispatching the approved node (before and after its dispatch, mid-command).
 */
export const GATE_BOUNDARIES = [
  'gate:before-await-write',
  'gate:after-await-write',
  'gate:before-approve-write',
  'gate:after-approve-write',
  'gate:before-dispatch-write',
  'gate:after-dispatch-write',
  'gate:mid-command',
] as const;
/** The run at its budget: the step writing the target's `NodeEscalated`, the person's raise (approve-rerun), the rerun. */
export const BUDGET_BOUNDARIES = [
  'budget:before-escalate-write',
  'budget:after-escalate-write',
  'budget:before-raise-write',
  'budget:after-raise-write',
  'budget:mid-command',
] as const;
/**
 * A `for_each` target (issue 28): the step writing its `NodeExpanded`, before and after. The instance it makes
 * (`b[x]`) then crosses the step boundaries as a node does: its own dispatch, command and record.
 */
export const EXPAND_BOUNDARIES = ['expand:before-write', 'expand:after-write'] as const;
/**
 * The join of a `for_each` or sub-graph target (issue 28): the write of its `NodeJoined`, after the instance (or
 * child node) recorded its last attempt; lost, or landed with the next node not yet dispatched.
 */
export const JOIN_BOUNDARIES = ['join:before-write', 'join:after-write'] as const;
/**
 * A loop's next cycle (issue 28; the target has `repeat:` and holds on cycle 2): the write that records cycle 1,
 * starts cycle 2 and dispatches it (lost, or landed with cycle 2 never begun), and cycle 2's command killed.
 */
export const LOOP_BOUNDARIES = [
  'loop:before-cycle-write',
  'loop:after-cycle-write',
  'loop:mid-command',
] as const;
/** A rerun from the node before the target (issue 28; the target itself at a), killed around its write. */
export const RERUN_BOUNDARIES = ['rerun:before-write', 'rerun:after-write'] as const;
/**
 * A serialized chain (a, b, c in one session, one call): its one dispatch write (before, after), the call, and the
 * write that records the chain (before, after). The failpoints are the chain's first node's, wherever the target is.
 */
export const SERIALIZED_BOUNDARIES = [
  'serialized:before-write',
  'serialized:after-write',
  'serialized:mid-command',
  'serialized:before-record-write',
  'serialized:after-record-write',
] as const;
/** A session handed over: the write that records the node before the target and dispatches the target, which resumes its session. */
export const SESSION_BOUNDARIES = [
  'session:before-handover-write',
  'session:after-handover-write',
  'session:mid-command',
] as const;
/** A budget stop: the target's agent stopped at its turn budget, killed right after the stop or after its failure's write. */
export const STOP_BOUNDARIES = ['stop:after-stop', 'stop:after-record-write'] as const;
/** The check-run store's write, killed at its `n`-th write in the step (the write that dispatches the target). */
export const STORE_BOUNDARIES = FAILPOINTS.filter((p): p is Extract<Failpoint, `check-run:${string}`> =>
  p.startsWith('check-run:'),
);
/** The App server (dist/app.js), killed around the journal write of a signed delivery. */
export const APP_BOUNDARIES = [
  'app:before-approve-write',
  'app:after-approve-write',
  'app:before-rerun-write',
  'app:after-rerun-write',
  'app:before-settle-write',
  'app:after-settle-write',
] as const;
const APP_FOLLOWS = ['again', 'other', 'both'] as const;

export type Boundary =
  | (typeof STEP_BOUNDARIES)[number]
  | (typeof CHAIN_BOUNDARIES)[number]
  | (typeof RECOVERY_BOUNDARIES)[number]
  | 'post-step'
  | (typeof APPROVAL_BOUNDARIES)[number]
  | (typeof GATE_BOUNDARIES)[number]
  | (typeof BUDGET_BOUNDARIES)[number]
  | (typeof EXPAND_BOUNDARIES)[number]
  | (typeof JOIN_BOUNDARIES)[number]
  | (typeof LOOP_BOUNDARIES)[number]
  | (typeof RERUN_BOUNDARIES)[number]
  | (typeof STORE_BOUNDARIES)[number]
  | (typeof APP_BOUNDARIES)[number]
  | (typeof SERIALIZED_BOUNDARIES)[number]
  | (typeof SESSION_BOUNDARIES)[number]
  | (typeof STOP_BOUNDARIES)[number];

export const ALL_BOUNDARIES: Boundary[] = [
  ...STEP_BOUNDARIES,
  ...CHAIN_BOUNDARIES,
  ...RECOVERY_BOUNDARIES,
  'post-step',
  ...APPROVAL_BOUNDARIES,
  ...GATE_BOUNDARIES,
  ...BUDGET_BOUNDARIES,
  ...EXPAND_BOUNDARIES,
  ...STORE_BOUNDARIES,
  ...APP_BOUNDARIES,
  // Last, so the sample's picks for the boundaries before them stay as they were.
  ...LOOP_BOUNDARIES,
  ...RERUN_BOUNDARIES,
  ...SERIALIZED_BOUNDARIES,
  ...SESSION_BOUNDARIES,
  ...STOP_BOUNDARIES,
  ...JOIN_BOUNDARIES,
];

/**
 * What follows the crash. After an interruption: a person approves a rerun or settles (`never`), or the run goes
 * on with or without an explicit recovery first (`safe`). At a gate or a budget: a person approves (`approve`,
 * `approve-rerun`) or fails the run. After a killed approval: the same approval again (`again`: the CLI command
 * re-run, the job re-run on the same comment, GitHub's redelivery), a new one (`other`: a new comment, or another
 * person at the CLI), or for the App both (the redelivery, then a new comment).
 */
export type FollowUp =
  | 'approve-rerun'
  | 'settle'
  | 'recover-then-run'
  | 'run'
  | 'approve'
  | 'fail-run'
  | 'again'
  | 'other'
  | 'both';

export interface Scenario {
  id: string;
  face: Face;
  store: Store;
  feature: Feature;
  replay: Replay;
  boundary: Boundary;
  position: Position;
  follow: FollowUp;
  outcome: Outcome;
}

export const NODES = ['a', 'b', 'c'] as const;
const POSITIONS = [0, 1, 2] as const;
const OUTCOMES = ['pass', 'fail-once'] as const;
const REPLAYS = ['never', 'safe'] as const;
const STORE_OF: Record<Face, Store> = { cli: 'file', action: 'git', app: 'git' };

export const interruptFollows = (replay: Replay): FollowUp[] =>
  replay === 'never' ? ['approve-rerun', 'settle'] : ['recover-then-run', 'run'];

type Parts = Omit<Scenario, 'id'>;

function scenario(p: Parts): Scenario {
  const { face, store, feature, replay, boundary, position, follow, outcome } = p;
  return {
    id: `${face}/${store}/${feature}/${replay}/${boundary}/${NODES[position]}/${follow}/${outcome}`,
    ...p,
  };
}

/** Each combination of the lists given, as scenarios. */
function cross(
  base: Pick<Parts, 'face' | 'store' | 'feature'>,
  dims: {
    boundaries: readonly Boundary[];
    replays?: readonly Replay[];
    positions?: readonly Position[];
    follows: (replay: Replay) => readonly FollowUp[];
    outcomes?: (follow: FollowUp) => readonly Outcome[];
  },
): Scenario[] {
  const out: Scenario[] = [];
  for (const boundary of dims.boundaries)
    for (const replay of dims.replays ?? REPLAYS)
      for (const position of dims.positions ?? POSITIONS)
        for (const follow of dims.follows(replay))
          for (const outcome of dims.outcomes?.(follow) ?? OUTCOMES)
            out.push(scenario({ ...base, boundary, replay, position, follow, outcome }));
  return out;
}

/** A run that fails (or is settled without running the target again) has no second attempt to vary. */
const runsAgain = (f: FollowUp): readonly Outcome[] =>
  f === 'fail-run' || f === 'settle' ? ['pass'] : OUTCOMES;

/** The matrix of issue 6: a node's own boundaries, recovery, the post step and the approval of a held node. */
function plain(face: 'cli' | 'action', store: Store): Scenario[] {
  const base = { face, store, feature: 'plain' as const };
  return [
    // In `node: all` the dispatch of b or c is chained into the record of the node before it: the chain boundaries.
    ...cross(base, {
      boundaries: ['before-dispatch-write', 'after-dispatch-write'],
      positions: [0],
      follows: interruptFollows,
    }),
    ...cross(base, { boundaries: STEP_BOUNDARIES.slice(2), follows: interruptFollows }),
    ...cross(base, { boundaries: CHAIN_BOUNDARIES, positions: [1, 2], follows: interruptFollows }),
    ...cross(base, {
      boundaries: [...RECOVERY_BOUNDARIES, ...(face === 'action' ? (['post-step'] as const) : [])],
      follows: interruptFollows,
    }),
    ...cross(base, {
      boundaries: APPROVAL_BOUNDARIES,
      replays: ['never'],
      follows: () => ['again', 'other'],
    }),
  ];
}

/** The gate (and the gate with guidance): a gated node's replay rule matters only once it has been dispatched. */
function gate(face: 'cli' | 'action', feature: 'gate' | 'guidance'): Scenario[] {
  const base = { face, store: STORE_OF[face], feature };
  return [
    ...cross(base, {
      boundaries: ['gate:before-await-write', 'gate:after-await-write'],
      replays: ['never'],
      follows: () => ['approve', 'fail-run'],
      outcomes: runsAgain,
    }),
    ...cross(base, {
      boundaries: ['gate:before-approve-write', 'gate:after-approve-write'],
      replays: ['never'],
      follows: () => ['again', 'other'],
    }),
    ...cross(base, {
      boundaries: ['gate:before-dispatch-write', 'gate:after-dispatch-write', 'gate:mid-command'],
      follows: interruptFollows,
      outcomes: runsAgain,
    }),
  ];
}

/** A budget escalation: the node after the one that spent the run's budget (positions b and c). */
function budget(face: 'cli' | 'action'): Scenario[] {
  const base = { face, store: STORE_OF[face], feature: 'budget' as const };
  const positions = [1, 2] as const;
  return [
    ...cross(base, {
      boundaries: ['budget:before-escalate-write', 'budget:after-escalate-write'],
      replays: ['never'],
      positions,
      follows: () => ['approve-rerun', 'fail-run'],
      outcomes: runsAgain,
    }),
    ...cross(base, {
      boundaries: ['budget:before-raise-write', 'budget:after-raise-write'],
      replays: ['never'],
      positions,
      follows: () => ['again', 'other'],
    }),
    ...cross(base, {
      boundaries: ['budget:mid-command'],
      positions,
      follows: interruptFollows,
      outcomes: runsAgain,
    }),
  ];
}

/**
 * A `for_each` target with one item: the expansion's write, then its instance's dispatch, command and record. An
 * instance's dispatch is a write of its own (the expansion before it is no record to chain it to), so its dispatch
 * boundaries cross every position.
 */
function forEach(face: 'cli' | 'action'): Scenario[] {
  const base = { face, store: STORE_OF[face], feature: 'for_each' as const };
  return cross(base, {
    boundaries: [...EXPAND_BOUNDARIES, ...STEP_BOUNDARIES, ...JOIN_BOUNDARIES],
    follows: interruptFollows,
  });
}

/**
 * A sub-graph target (issue 28): the target node `b` is `graph:` a file of one node, `x`, so the watched node is
 * `b/x`. The expansion's write (it journals the child graph's hash), then the child node's dispatch, command and
 * record; the join follows in a later write.
 */
function subgraph(face: 'cli' | 'action'): Scenario[] {
  const base = { face, store: STORE_OF[face], feature: 'subgraph' as const };
  return cross(base, {
    boundaries: [...EXPAND_BOUNDARIES, ...STEP_BOUNDARIES, ...JOIN_BOUNDARIES],
    follows: interruptFollows,
  });
}

/**
 * A loop's next cycle, and a rerun from a node (issue 28): after an interruption of the loop the usual follow-ups;
 * after a killed rerun the same command again or anew. The target's command passes (its cycles are the variation).
 */
function loopAndRerun(face: 'cli' | 'action'): Scenario[] {
  const store = STORE_OF[face];
  return [
    ...cross(
      { face, store, feature: 'loop' },
      { boundaries: LOOP_BOUNDARIES, follows: interruptFollows, outcomes: () => ['pass'] },
    ),
    ...cross(
      { face, store, feature: 'rerun' },
      { boundaries: RERUN_BOUNDARIES, follows: () => ['again', 'other'], outcomes: () => ['pass'] },
    ),
  ];
}

/** The check-run store's reads and writes; a create happens only at the run's first write (the target at a). */
function checkRunStore(): Scenario[] {
  const base = { face: 'action' as const, store: 'check-run' as const, feature: 'plain' as const };
  const at = (boundaries: readonly Boundary[], positions: readonly Position[]) =>
    cross(base, { boundaries, positions, follows: interruptFollows });
  return [
    ...at(['check-run:before-read', 'check-run:after-read-back'], POSITIONS),
    ...at(['check-run:before-create', 'check-run:after-create'], [0]),
    ...at(['check-run:before-update', 'check-run:after-update'], [1, 2]),
    ...cross(base, { boundaries: ['mid-command'], follows: interruptFollows, outcomes: () => ['pass'] }),
    ...cross(base, { boundaries: APPROVAL_BOUNDARIES, replays: ['never'], follows: () => ['again'] }),
  ];
}

/** The App server killed around the journal write of `/approve` (gate, guidance), `/approve-rerun` and `/settle`. */
function app(): Scenario[] {
  const base = { face: 'app' as const, store: 'git' as const };
  const dims = { replays: ['never'] as const, positions: [0, 2] as const, follows: () => APP_FOLLOWS };
  const b = (verb: string) => [`app:before-${verb}-write`, `app:after-${verb}-write`] as Boundary[];
  return [
    ...cross({ ...base, feature: 'gate' }, { ...dims, boundaries: b('approve') }),
    ...cross({ ...base, feature: 'guidance' }, { ...dims, boundaries: b('approve') }),
    ...cross({ ...base, feature: 'plain' }, { ...dims, boundaries: b('rerun') }),
    ...cross({ ...base, feature: 'plain' }, { ...dims, boundaries: b('settle'), outcomes: () => ['pass'] }),
  ];
}

/** The agents' paths (issue 26): a serialized chain's writes and call, a session handed over, a budget stop. */
function agents(face: 'cli' | 'action'): Scenario[] {
  const store = STORE_OF[face];
  return [
    ...cross(
      { face, store, feature: 'serialized' },
      { boundaries: SERIALIZED_BOUNDARIES, follows: interruptFollows },
    ),
    ...cross(
      { face, store, feature: 'session' },
      { boundaries: SESSION_BOUNDARIES, positions: [1, 2], follows: interruptFollows },
    ),
    // The stop is the target's first attempt's end: it always overspends once.
    ...cross(
      { face, store, feature: 'stop' },
      { boundaries: STOP_BOUNDARIES, follows: interruptFollows, outcomes: () => ['fail-once'] },
    ),
  ];
}

/** Every scenario, in a fixed order, each distinct. */
export function crashMatrix(): Scenario[] {
  const all = [
    ...plain('cli', 'file'),
    ...plain('action', 'git'),
    ...gate('cli', 'gate'),
    ...gate('cli', 'guidance'),
    ...gate('action', 'gate'),
    ...gate('action', 'guidance'),
    ...budget('cli'),
    ...budget('action'),
    ...forEach('cli'),
    ...forEach('action'),
    ...subgraph('cli'),
    ...subgraph('action'),
    ...loopAndRerun('cli'),
    ...loopAndRerun('action'),
    ...checkRunStore(),
    ...app(),
    ...agents('cli'),
    ...agents('action'),
  ];
  const seen = new Set<string>();
  return all.filter((s) => !seen.has(s.id) && seen.add(s.id));
}

/**
 * A bounded sample for `npm test`: every boundary once, rotating the face (where the boundary has several), the
 * store, the feature, the replay rule, the position, the follow-up and the outcome so that each value appears.
 */
export function crashSample(all = crashMatrix()): Scenario[] {
  return ALL_BOUNDARIES.map((boundary, k) => {
    const candidates = all.filter((s) => s.boundary === boundary);
    return candidates[(k * 11) % candidates.length]!;
  });
}

/** The graph node at the scenario's position. */
export const targetNode = (s: Pick<Scenario, 'position'>) => NODES[s.position];
/** The node the scenario watches: the graph node, for `for_each` its one instance (`b[x]`), for `subgraph` `b/x`. */
export const target = (s: Pick<Scenario, 'position'> & { feature?: Feature }) =>
  s.feature === 'for_each'
    ? `${NODES[s.position]}[x]`
    : s.feature === 'subgraph'
      ? `${NODES[s.position]}/x`
      : NODES[s.position];

/** The node a rerun scenario reruns from: the one before the target, or the target itself at a. */
export const rerunFromNode = (s: Pick<Scenario, 'position'>) => NODES[Math.max(0, s.position - 1)]!;
