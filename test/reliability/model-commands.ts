/**
 * What people and runners do, as fast-check commands on the CLI's world (issue 45): run a step (pass or fail),
 * kill it mid-attempt, recover, approve a gate, approve a rerun with or without a changed graph, settle, fail the
 * run, rerun from a node, hit the node's budget or the run's, hit the daily cap, lose the answer to a person's
 * command (the process dies after its write) and type it again. After each, every check runs; a problem fails
 * the command with the checks' words, and fast-check shrinks the sequence.
 */
import fc from 'fast-check';
import { nextRunId } from '../../src/journal/run-id.js';
import { checkAll, type Problems, sortKnown } from './model-checks.js';
import { type Call, type CliWorld, NODES, REFUSED } from './model-world.js';

/** What the model keeps: only what picks the next command (the world decides everything else). */
export interface Model {
  steps: number;
}

/** A fault injected on purpose, to watch its check fail (`INTERLOCK_MODEL_FAULT`). */
export type Fault = 'liveness' | 'agreement' | 'who' | 'refusal' | 'effects' | 'fold' | undefined;

export interface Real {
  w: CliWorld;
  fault: Fault;
  /** Every command so far, with its exit code: printed with a failure. */
  log: string[];
  /** Problems of a seam main has today (KNOWN_SEAMS), passed over outside strict mode: name → times seen. */
  known: Map<string, number>;
  /** Problems a command itself found (the id a fork took), added to the checks' after it. */
  found: Problems;
  /** Every problem fails, known or not (INTERLOCK_MODEL_STRICT=1, and a fault injected on purpose). */
  strict: boolean;
}

/** The people who decide: `c` needs two of them. */
const PEOPLE = ['ann', 'bo'] as const;
type Person = (typeof PEOPLE)[number];

type Act = (r: Real) => Promise<Call>;

class Command implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly label: string,
    readonly act: Act,
  ) {}
  check(): boolean {
    return true;
  }
  async run(m: Model, r: Real): Promise<void> {
    m.steps++;
    const before = r.w.journals();
    const call = await this.act(r);
    r.log.push(`${this.label} → exit ${call.code}${call.killed ? ' (killed)' : ''}`);
    injectAfter(r, before, call);
    const found: Problems = [...r.found.splice(0), ...(await checkAll(r.w, before, call, r.fault))];
    const { known, rest: problems } = sortKnown(found, r.strict);
    for (const k of known) r.known.set(k, (r.known.get(k) ?? 0) + 1);
    if (problems.length)
      throw new Error(
        `after ${this.label} (exit ${call.code}):\n${problems.map((p) => `  (${p.check}) ${p.what}`).join('\n')}\n` +
          `output: ${(call.out + call.err).trim().slice(0, 1200)}`,
      );
  }
  toString(): string {
    return this.label;
  }
}

/** The faults that break the world rather than a check: a refusal that writes, a history rewritten. */
function injectAfter(r: Real, before: Map<string, string>, call: Call): void {
  const file = `.interlock/runs/${r.w.current}.json`;
  const text = r.w.read(file);
  if (!text) return;
  if (r.fault === 'refusal' && call.code === REFUSED) r.w.write(file, `${text}\n`);
  if (r.fault === 'fold' && before.get(`${r.w.current}.json`) !== text) {
    const j = JSON.parse(text) as { events: Array<{ at: string }> };
    // A history rewritten: the first event's time moves each time the journal grows.
    j.events[0]!.at = new Date(Date.UTC(2000, 0, 1, 0, 0, r.log.length)).toISOString();
    r.w.write(file, `${JSON.stringify(j, null, 2)}\n`);
  }
}

const run = (r: Real, more: string[] = []) => r.w.cli(['run', 'graph.yml', '--run-id', r.w.current, ...more]);

/** A person's command on the current run; a fork a rerun-from made becomes the current run. */
async function person(r: Real, args: string[], who: Person = 'ann'): Promise<Call> {
  const c = await r.w.cli([...args, '--run-id', r.w.current, '--by', who]);
  const fork = /forked (\S+) \(it had ended\) as (\S+) at/.exec(c.out);
  if (fork) {
    const expected = nextRunId(fork[1]!);
    r.w.current = fork[2]!;
    if (fork[2] !== expected && !r.w.journals().has(`${expected}.json`))
      r.found.push({
        check: 'agreement',
        what: `rerun-from forked ${fork[1]} as ${fork[2]}; the Action and the App name the run after it ${expected}`,
      });
  }
  return c;
}

const node = fc.constantFrom(...NODES);
const someone = fc.constantFrom(...PEOPLE);
const outcome = fc.constantFrom('pass' as const, 'fail' as const);

/** The commands, weighted so most sequences stay on the cheap path (the bundle only to kill a process). */
export function commands(): fc.Arbitrary<Iterable<fc.AsyncCommand<Model, Real>>> {
  const c = (label: string, act: Act) => new Command(label, act);
  // INTERLOCK_MODEL_WITHOUT=kill,lost leaves commands out, to look past a seam another branch is fixing.
  const without = (process.env.INTERLOCK_MODEL_WITHOUT ?? '').split(',').filter(Boolean);
  const keep = (a: fc.Arbitrary<Command>, name: string) => (without.includes(name) ? [] : [a]);
  const all: Array<[string, fc.Arbitrary<Command>]> = [
    [
      'step',
      fc.tuple(outcome, fc.boolean()).map(([o, all]) =>
        c(`run a step (${o}${all ? ', --all' : ''})`, (r) => {
          for (const n of NODES) r.w.outcome(n, o);
          return run(r, all ? ['--all'] : []);
        }),
      ),
    ],
    [
      'kill',
      fc.constant(
        c('kill the step after its command', (r) =>
          r.w.bundle(['run', 'graph.yml', '--run-id', r.w.current], 'after-command'),
        ),
      ),
    ],
    ['recover', fc.constant(c('recover', (r) => r.w.cli(['recover', '--run-id', r.w.current])))],
    [
      'approve',
      fc.tuple(node, someone).map(([n, p]) => c(`approve ${n} (${p})`, (r) => person(r, ['approve', n], p))),
    ],
    [
      'approve-rerun',
      fc.tuple(node, fc.boolean(), someone).map(([n, change, p]) =>
        c(
          `approve-rerun ${n} (${p})${change ? ' after changing the graph, --allow-graph-change' : ''}`,
          (r) => {
            if (change) r.w.changeGraph();
            return person(r, ['approve-rerun', n, ...(change ? ['--allow-graph-change'] : [])], p);
          },
        ),
      ),
    ],
    ['graph-change', fc.constant(c('run --allow-graph-change', (r) => run(r, ['--allow-graph-change'])))],
    [
      'settle',
      node.map((n) => c(`settle ${n}`, (r) => person(r, ['settle', n, '--note', 'checked by hand']))),
    ],
    ['fail-run', fc.constant(c('fail-run', (r) => person(r, ['fail-run', '--reason', 'given up'])))],
    ['rerun-from', node.map((n) => c(`rerun-from ${n}`, (r) => person(r, ['rerun-from', n])))],
    [
      'budget',
      fc.constant(
        c("hit b's budget (its agent reports $4 of $3)", (r) => {
          r.w.cost(4);
          for (const n of NODES) r.w.outcome(n, 'pass');
          return run(r, ['--all']).finally(() => r.w.cost(1));
        }),
      ),
    ],
    [
      'daily-cap',
      fc.constant(
        c('hit the daily cap (another run spends $12 of $12)', (r) => {
          r.w.spends++;
          return r.w.cli(['run', 'spend.yml', '--run-id', `spend/issue-${r.w.spends}`, '--all']);
        }),
      ),
    ],
    [
      'raise-cap',
      fc.constant(
        c('raise the daily cap (a person edits .github/interlock.yml to $1000)', async (r) => {
          r.w.write('.github/interlock.yml', 'budget: { daily_usd: 1000 }\n');
          return { args: ['(edit .github/interlock.yml)'], code: 0, out: '', err: '' };
        }),
      ),
    ],
    [
      'lost',
      fc.tuple(fc.constantFrom('approve-rerun', 'settle', 'approve'), node, someone).map(([verb, n, p]) =>
        c(`${verb} ${n} (${p}), its answer lost (killed after its write), typed again`, async (r) => {
          const extra = verb === 'settle' ? ['--note', 'checked by hand'] : [];
          const args = [verb, n, ...extra, '--run-id', r.w.current, '--by', p];
          const first = await r.w.bundle(args, 'after-person-command-write');
          if (!first.killed) return first;
          // The refusal check compares with the journal as the retyped command found it.
          const before = r.w.journals();
          return { ...(await person(r, [verb, n, ...extra], p)), before };
        }),
      ),
    ],
  ];
  // A step three times as likely as any other command: runs get far enough (b's attempts, its spend) for the daily
  // cap and what follows it to come from the seed.
  const weighted = all.flatMap(([name, a]) =>
    keep(a, name).flatMap((x) => (name === 'step' ? [x, x, x] : [x])),
  );
  return fc.commands(weighted, { maxCommands: Number(process.env.INTERLOCK_MODEL_COMMANDS ?? 10) });
}
