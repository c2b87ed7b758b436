import type { Journal, JournalEvent } from '../../src/journal/events/events.js';
import { fold } from '../../src/journal/fold.js';
import { parseJournal } from '../../src/journal/parse.js';
import {
  endStatus,
  expectedApprovals,
  expectedCycles,
  expectedOtherRuns,
  expectedTargetLines,
  personActs,
  writeLost,
} from './crash-expect.js';
import { GUIDANCE, scenarioGraph } from './crash-graphs.js';
import { NODES, type Scenario, target, targetNode } from './crash-model.js';
import { canonical, Problems } from './support.js';

/** An event a process said it wrote (a line of its output, or its exit status for a settlement). */
export interface Ack {
  by: string;
  type: JournalEvent['type'];
  node: string;
  attempt?: number;
  /** For settlements: who. */
  person?: string;
}

/** The journal as it stood after one process. */
export interface Snapshot {
  after: string;
  text: string | undefined;
}

/** Acknowledged events in the output of the CLI (stderr and stdout) or of the Action (its log). */
export function acksIn(by: string, output: string): Ack[] {
  const out: Ack[] = [];
  const add = (type: Ack['type'], node: string, attempt?: string) =>
    out.push({ by, type, node, ...(attempt ? { attempt: Number(attempt) } : {}) });
  for (const m of output.matchAll(/dispatched "([\w-]+)" attempt (\d+)/g)) add('NodeDispatched', m[1]!, m[2]);
  for (const m of output.matchAll(/"([\w-]+)" attempt (\d+) recorded in/g)) add('NodeRecorded', m[1]!, m[2]);
  for (const m of output.matchAll(/"([\w-]+)" attempt (\d+) failed in/g)) add('NodeFailed', m[1]!, m[2]);
  for (const m of output.matchAll(/recovered: "([\w-]+)" attempt (\d+) was interrupted/g))
    add('NodeInterrupted', m[1]!, m[2]);
  for (const m of output.matchAll(/interlock: "([\w-]+)" was interrupted/g)) add('NodeInterrupted', m[1]!);
  return out;
}

function present(journal: Journal, ack: Ack): boolean {
  return journal.events.some(
    (e) =>
      e.type === ack.type &&
      'node' in e &&
      e.node === ack.node &&
      (ack.attempt === undefined || !('attempt' in e) || e.attempt === ack.attempt) &&
      (ack.person === undefined ||
        ((e.type === 'RerunApproved' || e.type === 'NodeApproved') && e.approved_by === ack.person) ||
        (e.type === 'NodeRecorded' && e.recorded_by === ack.person)),
  );
}

export interface CheckInput {
  scenario: Scenario;
  snapshots: Snapshot[];
  acks: Ack[];
  /** effects.log, one `<node> <attempt>` line per command that ran. */
  effects: string[];
  /** The target's `$INTERLOCK_CONTEXT` of each attempt that ran, by attempt (ctx-<attempt>.json). */
  contexts?: Map<number, string>;
}

/** Every invariant, each failure named; an empty list means the scenario held. */
export function checkScenario(input: CheckInput): string[] {
  const { scenario: s, snapshots, acks, effects } = input;
  const p = new Problems();
  const graph = scenarioGraph(s);
  const last = snapshots.at(-1);
  if (!p.check(last?.text !== undefined, 'no journal at the end')) return p.list;

  // 1. The journal parses, validates and folds; events are numbered 1..n.
  let journal: Journal;
  try {
    journal = parseJournal(last!.text!, 'journal');
  } catch (e) {
    p.add(`the final journal does not parse: ${(e as Error).message}`);
    return p.list;
  }
  p.check(
    journal.events.every((e, i) => e.seq === i + 1),
    'event sequence numbers are not 1..n',
  );
  let state: ReturnType<typeof fold>;
  try {
    state = fold(journal, graph);
  } catch (e) {
    p.add(`the final journal does not fold: ${(e as Error).message}`);
    return p.list;
  }

  // 2. Append-only: every journal seen after a process is a prefix of every later one (nothing lost or rewritten).
  const seen = snapshots.filter((x) => x.text !== undefined);
  for (let i = 1; i < seen.length; i++) {
    let before: Journal;
    let now: Journal;
    try {
      before = parseJournal(seen[i - 1]!.text!, 'before');
      now = parseJournal(seen[i]!.text!, 'after');
    } catch (e) {
      p.add(`the journal after "${seen[i]!.after}" does not parse: ${(e as Error).message}`);
      continue;
    }
    const lost = before.events.findIndex((e, k) => canonical(e) !== canonical(now.events[k]));
    p.check(
      lost < 0,
      () =>
        `after "${seen[i]!.after}", event ${lost + 1} written before "${seen[i - 1]!.after}" is missing or changed`,
    );
  }

  // 3. No acknowledged event is missing.
  for (const a of acks)
    p.check(
      present(journal, a),
      () =>
        `"${a.by}" acknowledged ${a.type} ${a.node}${a.attempt ? `#${a.attempt}` : ''}${a.person ? ` by ${a.person}` : ''}, which is not in the journal`,
    );

  // 4. Side effects: each command ran once per dispatched attempt, and the target exactly as expected.
  const counts = new Map<string, number>();
  for (const line of effects) counts.set(line, (counts.get(line) ?? 0) + 1);
  for (const [line, n] of counts) p.check(n === 1, `side effect "${line}" happened ${n} times`);
  const dispatched = new Set(
    journal.events.flatMap((e) => (e.type === 'NodeDispatched' ? [`${e.node} ${e.attempt}`] : [])),
  );
  for (const line of effects) p.check(dispatched.has(line), `side effect "${line}" has no NodeDispatched`);
  const t = target(s);
  const wantLines = expectedTargetLines(s);
  const got = effects.filter((l) => l.startsWith(`${t} `));
  p.check(
    canonical(got) === canonical(wantLines),
    () => `target "${t}" side effects ${JSON.stringify(got)}, expected ${JSON.stringify(wantLines)}`,
  );
  for (const id of NODES)
    if (id !== targetNode(s)) {
      const runs = expectedOtherRuns(s, id);
      p.check(
        effects.filter((l) => l.startsWith(`${id} `)).length === runs,
        `node "${id}" side effect did not happen exactly ${runs} time(s)`,
      );
    }

  // 5. A never node runs again after an interruption only with a named person's approval of that attempt.
  for (const node of graph.nodes.filter((n) => n.replay === 'never')) {
    let interrupted = 0;
    const approvals = new Set<number>();
    for (const e of journal.events) {
      if (!('node' in e) || e.node !== node.id) continue;
      if (e.type === 'NodeInterrupted') interrupted = e.attempt;
      if (e.type === 'RerunApproved') approvals.add(e.attempt);
      if (e.type === 'NodeDispatched' && interrupted && e.attempt === interrupted + 1)
        p.check(
          approvals.has(interrupted),
          `never node "${node.id}" attempt ${e.attempt} was dispatched after attempt ${interrupted} was interrupted, with no approval`,
        );
    }
  }
  // ... and each approval is recorded exactly once, however often it was delivered or re-run.
  const want = expectedApprovals(s);
  for (const type of ['NodeApproved', 'RerunApproved'] as const) {
    const n = journal.events.filter((e) => e.type === type && e.node === t).length;
    p.check(n === want[type], `target "${t}" has ${n} ${type} recorded, expected ${want[type]}`);
  }

  // 6. The run was finished: completed by recover, approve or settle (a safe node finished on its own), or failed
  // by the person who refused it.
  p.check(
    state.checkpoint.status === endStatus(s),
    () =>
      `the run ended ${state.checkpoint.status}, expected ${endStatus(s)}: ${JSON.stringify(state.checkpoint)}`,
  );
  const settled = journal.events.some((e) => e.type === 'NodeRecorded' && e.node === t && e.recorded_by);
  p.check(
    settled === (personActs(s) === 'settle'),
    `target "${t}" ${settled ? 'was' : 'was not'} recorded by a person`,
  );

  // 7. Guidance reaches every attempt after the approval exactly once, byte for byte, as data.
  if (s.feature === 'guidance' && input.contexts)
    for (const [attempt, text] of input.contexts) {
      const g = (JSON.parse(text) as { guidance?: Array<{ text: string }> }).guidance ?? [];
      p.check(
        g.length === 1 && g[0]!.text === GUIDANCE,
        () =>
          `attempt ${attempt} of "${t}" got the guidance ${JSON.stringify(g)}, expected it once, byte for byte`,
      );
    }

  // 8. A loop starts each cycle once, however the write that starts it died; a rerun is recorded once (issue 28).
  if (s.feature === 'loop') {
    const n = journal.events.filter((e) => e.type === 'NodeCycleStarted' && e.node === t).length;
    p.check(n === expectedCycles(s), `target "${t}" started ${n} cycles, expected ${expectedCycles(s)}`);
  }
  if (s.feature === 'rerun') {
    const n = journal.events.filter((e) => e.type === 'RerunFromApproved').length;
    p.check(n === 1, `${n} RerunFromApproved recorded, expected 1`);
  }

  // 9. A write that records one node and dispatches the next lands whole or not at all.
  if (
    s.boundary.startsWith('chain:') ||
    s.boundary.includes('handover') ||
    (s.boundary.startsWith('check-run:') && s.position > 0)
  )
    checkChainHalves(s, snapshots, p);
  // 9. The agents' paths: a chain dispatched whole or not at all, a session resumed from the last recorded node,
  // a budget stop recorded as such.
  if (s.feature === 'serialized') checkChainWrite(s, snapshots, p);
  if (s.feature === 'session' || s.feature === 'serialized')
    checkSessions(journal, p, s.feature === 'session');
  if (s.feature === 'stop') checkStop(s, journal, p);
  return p.list;
}

/** After the crash, the serialized chain's three dispatches are all in the journal, or none is. */
function checkChainWrite(s: Scenario, snapshots: Snapshot[], p: Problems): void {
  const crashed = snapshots.find((x) => x.after === 'crash' || x.after === 'killed mid-command');
  if (!crashed) return void p.add('no journal snapshot after the crash');
  // The chain's write is the run's first: lost, it leaves no journal at all.
  const j = crashed.text ? parseJournal(crashed.text, 'after the crash') : { events: [] as JournalEvent[] };
  const chained = j.events
    .filter((e) => e.type === 'NodeDispatched' && e.chain)
    .map((e) => 'node' in e && e.node);
  const whole = writeLost(s) ? [] : [...NODES];
  p.check(
    canonical(chained) === canonical(whole),
    `after the crash, the chain's dispatches are ${JSON.stringify(chained)}, expected ${JSON.stringify(whole)}`,
  );
}

/** Every attempt that resumed a session resumed the one the session's last recorded node left before it. */
function checkSessions(journal: Journal, p: Problems, mustResume: boolean): void {
  let last: string | undefined;
  for (const e of journal.events) {
    if (e.type !== 'NodeRecorded' && e.type !== 'NodeFailed') continue;
    if (e.resumed_session !== undefined)
      p.check(
        e.resumed_session === last,
        `"${e.node}" attempt ${e.attempt} resumed session ${e.resumed_session}, not ${last ?? 'none'} (the last recorded node's)`,
      );
    if (e.type === 'NodeRecorded' && !e.recorded_by && e.session_id) last = e.session_id;
  }
  const resumed = journal.events.some((e) => e.type === 'NodeRecorded' && e.resumed_session !== undefined);
  if (mustResume) p.check(resumed, 'no node of the session resumed a session');
}

/** The target's first attempt ended at its turn budget: failed saying so, or interrupted by the crash after the stop. */
function checkStop(s: Scenario, journal: Journal, p: Problems): void {
  const t = target(s);
  const first = journal.events.find(
    (e) => (e.type === 'NodeFailed' || e.type === 'NodeInterrupted') && e.node === t && e.attempt === 1,
  );
  if (s.boundary === 'stop:after-stop')
    p.check(first?.type === 'NodeInterrupted', `"${t}" attempt 1 was not interrupted`);
  else
    p.check(
      first?.type === 'NodeFailed' &&
        first.failures.some((f) => f.check === 'budget' && /stopped/.test(f.message)),
      () => `"${t}" attempt 1 did not fail at its budget: ${JSON.stringify(first)}`,
    );
}

/** After the crash, the predecessor's record and the target's dispatch are both in the journal, or neither is. */
function checkChainHalves(s: Scenario, snapshots: Snapshot[], p: Problems): void {
  const crashed = snapshots.find((x) => x.after === 'crash');
  if (!crashed?.text) return void p.add('no journal after the crash');
  const j = parseJournal(crashed.text, 'after the crash');
  const before = NODES[s.position - 1]!;
  const recorded = j.events.some((e) => e.type === 'NodeRecorded' && e.node === before);
  const dispatched = j.events.some((e) => e.type === 'NodeDispatched' && e.node === target(s));
  p.check(
    recorded === dispatched && recorded === !writeLost(s),
    `after the crash, "${before}" ${recorded ? 'is' : 'is not'} recorded and "${target(s)}" ${dispatched ? 'is' : 'is not'} dispatched (the write ${writeLost(s) ? 'was lost' : 'had landed'})`,
  );
}
