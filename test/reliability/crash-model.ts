/**
 * The crash matrix: every boundary of a node step where a process can die, crossed with the replay rule, the
 * face and its store, the node's place in the graph, what a person does next, and the command's outcome.
 * Pure: the scenarios, the graph each one runs, and what each must leave behind.
 */

export type Face = 'cli' | 'action';
export type Replay = 'never' | 'safe';
export type Outcome = 'pass' | 'fail-once';
export type Position = 0 | 1 | 2;

/** Where the process dies. Failpoint names are the ones src/runner/failpoint.ts knows. */
export type Boundary =
  | 'before-dispatch-write'
  | 'after-dispatch-write'
  | 'mid-command'
  | 'after-command'
  | 'before-record-write'
  | 'after-record-write'
  /** The CLI's `recover` or the Action's post step dies while marking the killed attempt interrupted. */
  | 'recovery:before-recover-write'
  | 'recovery:after-recover-write'
  /** The Action's post step runs to its end after the main step was killed mid-command (Action only). */
  | 'post-step'
  /** The approval (CLI approve-rerun, or the Action's `mode: comment`) dies around its journal write. */
  | 'approval:before-settle-write'
  | 'approval:after-settle-write';

/** What follows the crash: for `never`, a person approves or settles; for `safe`, the run goes on. */
export type FollowUp = 'approve-rerun' | 'settle' | 'recover-then-run' | 'run';

export interface Scenario {
  id: string;
  face: Face;
  replay: Replay;
  boundary: Boundary;
  position: Position;
  follow: FollowUp;
  outcome: Outcome;
}

export const STEP_BOUNDARIES: Boundary[] = [
  'before-dispatch-write',
  'after-dispatch-write',
  'mid-command',
  'after-command',
  'before-record-write',
  'after-record-write',
];
export const RECOVERY_BOUNDARIES: Boundary[] = [
  'recovery:before-recover-write',
  'recovery:after-recover-write',
];
export const APPROVAL_BOUNDARIES: Boundary[] = [
  'approval:before-settle-write',
  'approval:after-settle-write',
];
export const ALL_BOUNDARIES: Boundary[] = [
  ...STEP_BOUNDARIES,
  ...RECOVERY_BOUNDARIES,
  'post-step',
  ...APPROVAL_BOUNDARIES,
];
export const NODES = ['a', 'b', 'c'] as const;

/** Every scenario, in a fixed order. */
export function crashMatrix(): Scenario[] {
  const out: Scenario[] = [];
  for (const face of ['cli', 'action'] as const)
    for (const replay of ['never', 'safe'] as const)
      for (const position of [0, 1, 2] as const)
        for (const outcome of ['pass', 'fail-once'] as const) {
          const follows: FollowUp[] =
            replay === 'never' ? ['approve-rerun', 'settle'] : ['recover-then-run', 'run'];
          const boundaries: Boundary[] = [
            ...STEP_BOUNDARIES,
            ...RECOVERY_BOUNDARIES,
            ...(face === 'action' ? (['post-step'] as Boundary[]) : []),
          ];
          for (const boundary of boundaries)
            for (const follow of follows)
              out.push(scenario(face, replay, boundary, position, follow, outcome));
          if (replay === 'never')
            for (const boundary of APPROVAL_BOUNDARIES)
              out.push(scenario(face, replay, boundary, position, 'approve-rerun', outcome));
        }
  return out;
}

function scenario(
  face: Face,
  replay: Replay,
  boundary: Boundary,
  position: Position,
  follow: FollowUp,
  outcome: Outcome,
): Scenario {
  return {
    id: `${face}/${replay}/${boundary}/${NODES[position]}/${follow}/${outcome}`,
    face,
    replay,
    boundary,
    position,
    follow,
    outcome,
  };
}

/**
 * A bounded sample for `npm test`: every boundary on both faces (where it exists), rotating the replay rule,
 * the position, the follow-up and the outcome so that each value appears.
 */
export function crashSample(all = crashMatrix()): Scenario[] {
  const picked: Scenario[] = [];
  let k = 0;
  for (const face of ['cli', 'action'] as const)
    for (const boundary of ALL_BOUNDARIES) {
      const candidates = all.filter((s) => s.face === face && s.boundary === boundary);
      if (!candidates.length) continue;
      picked.push(candidates[(k * 7) % candidates.length]!);
      k++;
    }
  return picked;
}

export const graphName = (s: Pick<Scenario, 'replay' | 'position'>) =>
  `crash-${s.replay}-${NODES[s.position]}`;
export const graphPath = (s: Pick<Scenario, 'replay' | 'position'>) =>
  `.github/interlock/${graphName(s)}.yml`;

/**
 * Three nodes in a chain. The target (at `position`, with the scenario's replay rule) appends one line per
 * attempt to effects.log (the side effect that must not repeat), hangs once when `hang` exists, fails its
 * first attempt when `fail-once` exists, and is checked by evidence. The others append their own line.
 */
export function graphText(s: Pick<Scenario, 'replay' | 'position'>): string {
  const target = NODES[s.position];
  const nodes = NODES.map((id, i) => {
    const deps = i ? `    depends_on: [${NODES[i - 1]}]\n` : '';
    if (id !== target)
      return `  - id: ${id}\n${deps}    replay: safe\n    run: echo "$INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> effects.log\n`;
    return `  - id: ${id}
${deps}    replay: ${s.replay}
    run: |
      echo "$INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> effects.log
      echo $$ > pid
      if [ -f hang ]; then rm -f hang; touch started; sleep 300; fi
      if [ "$INTERLOCK_ATTEMPT" = 1 ] && [ -f fail-once ]; then echo "attempt 1 fails on purpose" >&2; exit 1; fi
    validates:
      - file: effects.log
        contains: "^${id} [0-9]+$"
`;
  });
  return `interlock: 1\nname: ${graphName(s)}\nnodes:\n${nodes.join('')}`;
}

export const target = (s: Scenario) => NODES[s.position];

/** Whether the boundary leaves the target's first attempt in flight with its executor gone. */
export function interrupts(b: Boundary): boolean {
  return b !== 'before-dispatch-write' && b !== 'after-record-write';
}

/** Whether the target's first attempt started its command before the crash. */
export function commandRan(b: Boundary): boolean {
  return b !== 'before-dispatch-write' && b !== 'after-dispatch-write';
}

/**
 * How many times a node other than the target runs its command. In `node: all` one journal write records a node
 * and dispatches the next, so dying before the target's dispatch (when it has a predecessor) loses the
 * predecessor's record with it: the predecessor, `replay: safe` in these graphs, is recovered and runs again.
 */
export function expectedOtherRuns(s: Scenario, id: string): number {
  return s.boundary === 'before-dispatch-write' && s.position > 0 && id === NODES[s.position - 1] ? 2 : 1;
}

/** A person acts (approve-rerun or settle) only when something is held; otherwise the act is refused. */
export function personActs(s: Scenario): 'approve-rerun' | 'settle' | null {
  if (s.replay !== 'never' || !interrupts(s.boundary)) return null;
  if (s.boundary.startsWith('approval:')) return 'approve-rerun';
  return s.follow === 'approve-rerun' || s.follow === 'settle' ? s.follow : null;
}

/** The target's side-effect lines the scenario must leave, exactly: `<node> <attempt>` in order. */
export function expectedTargetLines(s: Scenario): string[] {
  const t = target(s);
  const once = s.outcome === 'fail-once';
  if (!interrupts(s.boundary)) return once ? [`${t} 1`, `${t} 2`] : [`${t} 1`];
  const first = commandRan(s.boundary) ? [`${t} 1`] : [];
  if (s.replay === 'safe') return [...first, `${t} 2`];
  // never: held; only a person's approval runs it again, and a settlement records it without running it.
  return personActs(s) === 'settle' ? first : [...first, `${t} 2`];
}
