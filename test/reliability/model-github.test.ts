// The model-based test across the faces on GitHub (issue 45): random sequences of what people and runners do,
// run through the bundled action against the local GitHub (a step, a kill, `mode: recover`, `mode: stuck`, people's
// comments taken by `mode: comment` or by the App's server (`node dist/app.js`, signed deliveries), a lost answer
// whose job is re-run on the same event), on the run's own branch, the journal branch of before and check runs.
// After every command: (1) liveness, (2) the faces agree on which nodes wait and on who they wait for
// (`interlock status` on the journal, the `/interlock status` reply, the job summary, the progress comment, the
// maintainers' page; `mode: stuck`'s list and notice after it runs), (3) a refusal wrote nothing, (4) effects once,
// (5) the fold whole. Seeded and shrinking like model-faces.test.ts; `INTERLOCK_MODEL_GITHUB_RUNS` sets the number
// of sequences per store (npm run reliability runs more), `INTERLOCK_MODEL_STRICT=1` fails on the seams main has
// today too. npm test's seed must reach the daily cap and post through the App (the last test).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { Journal } from '../../src/journal/events/events.js';
import { fold } from '../../src/journal/fold.js';
import { parseJournal } from '../../src/journal/parse.js';
import type { Checkpoint } from '../../src/journal/state.js';
import { loadGraphFile } from '../../src/runner/journal-io/graph-file.js';
import { OWNER, PEOPLE, REPO } from '../app/world.js';
import { requireBundle } from '../crash/harness.js';
import { type Problems, sortKnown } from './model-checks.js';
import {
  COMMENTERS,
  type Commenter,
  type CommentFace,
  type GitHubStore,
  GitHubWorld,
  GRAPH,
  type StuckRun,
} from './model-github.js';
import { CapReach } from './model-reach.js';
import {
  cliStatusWhos,
  noticeWhos,
  pageWhos,
  tableWhos,
  type Whos,
  whoDisagreements,
  whoOfState,
} from './model-who.js';
import { type Call, NODES, REFUSED, worldRoot } from './model-world.js';

const RUNS = Number(process.env.INTERLOCK_MODEL_GITHUB_RUNS ?? 1);
// npm test runs the same sequences each time (a seam it meets fails every run, not one run in ten); npm run
// reliability draws a new seed each run and prints it.
// Seed 55's first sequence on the run branch meets the daily cap within one step (b fails, its retry is at the cap)
// and goes on past it through the App's server: the last test holds on it, whatever the timing.
const SEED = Number(process.env.INTERLOCK_MODEL_SEED ?? 55);
const STRICT = process.env.INTERLOCK_MODEL_STRICT === '1';
const FAULT = process.env.INTERLOCK_MODEL_FAULT as GhFault;
type GhFault = 'agreement' | 'who' | 'refusal' | 'liveness' | undefined;

beforeAll(requireBundle);
const ROOT = worldRoot();
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

let sequences = 0;
let commandsRun = 0;
/** Faces asked again after a stale read (GitHub's, modelled by the local GitHub). */
let staleRetries = 0;
const known = new Map<string, number>();
/** Sequences whose run escalated a node at the daily cap, and those that went on past it (model-reach.ts). */
const reached = new CapReach();
/** People's comments the App's server took (signed deliveries to `node dist/app.js`), and `mode: stuck` runs. */
const acted = { app: 0, stuck: 0 };

function reach(w: GitHubWorld): void {
  const text = w.journalText();
  if (text !== undefined) reached.count([text]);
}

afterAll(() => {
  process.stderr.write(reached.line('model (GitHub)'));
  process.stderr.write(
    `model (GitHub): ${acted.app} comment(s) taken by the App's server, ${acted.stuck} mode: stuck run(s)\n`,
  );
  if (known.size)
    process.stderr.write(
      `model (GitHub): seams main has today, passed over (INTERLOCK_MODEL_STRICT=1 fails on them):\n${[...known].map(([k, n]) => `  ${n}× ${k}`).join('\n')}\n`,
    );
  const file = process.env.INTERLOCK_MODEL_REPORT;
  if (file)
    writeFileSync(
      file,
      JSON.stringify({
        sequences,
        commands: commandsRun,
        seed: SEED,
        staleRetries,
        reached,
        acted,
        known: Object.fromEntries(known),
      }),
    );
});

interface Real {
  w: GitHubWorld;
  strict: boolean;
  fault: GhFault;
  /** Problems a command itself found (what `mode: stuck` listed), added to the checks' after it. */
  found: Problems;
  /** The journal as each command found it, and the effects log. */
  last?: string;
  /** What the last command was: the job summary is only the run's state after a step that ran the graph. */
  lastWasStep: boolean;
}
interface Model {
  steps: number;
  store: GitHubStore;
}

const ended = (cp: Checkpoint) => cp.status === 'completed' || cp.status === 'failed';
const WAITS: Array<[keyof Checkpoint, string]> = [
  ['awaiting_approval_nodes', 'gate'],
  ['held_nodes', 'held'],
  ['escalated_nodes', 'escalated'],
];

/** `node kind` rows of a status table, markdown (`| a | held |`) or text (`a  held  …`); a label may follow the id (`a (rerun)`). */
function tableWaits(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/^\|? ?([a-z]+)(?: \([^)]*\))? +\|? ?(held|escalated|awaiting approval) /gm))
    out.add(`${m[1]} ${m[2] === 'awaiting approval' ? 'gate' : m[2]}`);
  return out;
}

/** `interlock status` (text, then --json) on the journal as the store holds it, in the checkout. */
async function cliStatus(w: GitHubWorld, text: string): Promise<{ text: Call; json: Call }> {
  const dir = mkdtempSync(join(w.ws, '.status-'));
  const file = join(dir, 'journal.json');
  writeFileSync(file, text);
  const call = async (args: string[]): Promise<Call> => {
    let out = '';
    let err = '';
    const io = {
      out: (t: string) => {
        out += t;
      },
      err: (t: string) => {
        err += t;
      },
      cwd: w.ws,
      env: { PATH: process.env.PATH ?? '' },
    };
    try {
      return { args, code: await main(args, io), out, err };
    } catch (e) {
      return { args, code: 1, out, err: `${err}${(e as Error).stack}`, threw: String(e) };
    }
  };
  try {
    return {
      text: await call(['status', '--journal', file]),
      json: await call(['status', '--journal', file, '--json']),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function checkAll(r: Real, before: string | undefined, call: Call): Promise<Problems> {
  const { w } = r;
  const out: Problems = [];
  const text = w.journalText();
  // (3) A refusal wrote nothing.
  if (call.code === REFUSED && text !== before)
    out.push({ check: 'refusal', what: `${call.args.join(' ')} was refused but the journal changed` });
  if (call.threw) out.push({ check: 'liveness', what: `${call.args.join(' ')} died: ${call.threw}` });
  if (text === undefined) return out;
  let j: Journal;
  try {
    j = parseJournal(text, w.run);
  } catch (e) {
    return [...out, { check: 'fold', what: `the journal does not parse: ${(e as Error).message}` }];
  }
  // (4) Each effect once, and only for an attempt the journal dispatched.
  const seen = new Set<string>();
  for (const line of w.effects().split('\n').filter(Boolean)) {
    if (seen.has(line)) out.push({ check: 'effects', what: `the side effect "${line}" happened twice` });
    seen.add(line);
    const [, node, attempt] = line.split(' ');
    if (
      !j.events.some((e) => e.type === 'NodeDispatched' && e.node === node && e.attempt === Number(attempt))
    )
      out.push({ check: 'effects', what: `the side effect "${line}" has no NodeDispatched in the journal` });
  }
  // … and each comment interlock keeps once (a progress comment, a notice per escalation) is there once.
  const markers = w.markers();
  for (const m of new Set(markers))
    if (markers.filter((x) => x === m).length > 1)
      out.push({ check: 'effects', what: `the comment ${m} was posted twice` });
  // (5) Every prefix folds; the journal only grew; status --json is the fold from scratch.
  const graph = loadGraphFile(join(w.ws, GRAPH));
  for (let k = 1; k <= j.events.length; k++)
    try {
      fold({ ...j, events: j.events.slice(0, k) }, graph);
    } catch (e) {
      out.push({ check: 'fold', what: `folding the first ${k} events fails: ${(e as Error).message}` });
      break;
    }
  if (before !== undefined && before !== text) {
    const old = parseJournal(before, w.run);
    if (!old.events.every((e, i) => JSON.stringify(e) === JSON.stringify(j.events[i])))
      out.push({ check: 'fold', what: 'an event already written was changed or removed' });
  }
  const status = await cliStatus(w, text);
  if (status.json.code !== 0 || status.text.code !== 0) {
    out.push({
      check: 'liveness',
      what: `interlock status on the journal cannot read it (exit ${status.text.code}): ${(status.text.err || status.json.err).split('\n')[0]}`,
    });
    return out;
  }
  const state = fold(j, graph);
  const cp = state.checkpoint;
  if (status.json.out.trim() !== JSON.stringify(cp, null, 2))
    out.push({
      check: 'fold',
      what: '`interlock status --json` is not the fold of the journal from scratch',
    });
  // (2) The faces list the same waits.
  const truth = new Set<string>();
  for (const [key, kind] of ended(cp) ? [] : WAITS)
    for (const n of (cp[key] as string[] | undefined) ?? []) truth.add(`${n} ${kind}`);
  // GitHub answers a read by branch name from up to 2 s before, a quarter of the time (the local GitHub does as
  // well): a face that read the store disagrees only if it still does once that has passed.
  const agrees = (rows: Set<string>) => rows.size === truth.size && [...truth].every((x) => rows.has(x));
  // … and say the same of who each waits for: why, who approved it so far, how many must (model-who.ts).
  const whoTruth = whoOfState(state, graph);
  const whoAgrees = (got: Whos) => whoDisagreements('', '', whoTruth, got).length === 0;
  const pageWho = (html: string): Whos =>
    new Map(
      pageWhos(html)
        .filter((x) => x.repo === `${OWNER}/${REPO}` && x.run === w.run)
        .map((x) => [x.node, x.who]),
    );
  let reply = await w.comment('/interlock status');
  let page = await w.page();
  const replyAgrees = () => agrees(tableWaits(reply.reply ?? '')) && whoAgrees(tableWhos(reply.reply ?? ''));
  const pageAgrees = () => agrees(page.rows) && whoAgrees(pageWho(page.html));
  if (!ended(cp) && (!replyAgrees() || !pageAgrees())) {
    staleRetries++;
    await new Promise((f) => setTimeout(f, 2100));
    reply = await w.comment('/interlock status');
    page = await w.page();
  }
  const issue = w.issueComments();
  const faces: Array<[string, Set<string>, string]> = [
    ['interlock status', tableWaits(status.text.out), status.text.out],
    ['the /interlock status reply', tableWaits(reply.reply ?? ''), reply.reply ?? ''],
    ['the maintainers page', page.rows, ''],
  ];
  if (r.lastWasStep) faces.push(['the job summary', tableWaits(w.summary), w.summary]);
  if (issue.progress) faces.push(['the progress comment', tableWaits(issue.progress), issue.progress]);
  // An ended run's table still shows its held or escalated nodes; nothing waits in it.
  if (ended(cp)) for (const f of faces) f[1] = new Set();
  if (r.fault === 'agreement') faces[2]![1].add('a held');
  for (const [name, got, said] of faces) {
    const miss = [...truth].filter((x) => !got.has(x)).map((x) => `${x} (missing)`);
    const more = [...got].filter((x) => !truth.has(x)).map((x) => `${x} (not waiting)`);
    if (miss.length || more.length)
      out.push({
        check: 'agreement',
        what: `[${w.store}] ${name} and the journal disagree: ${[...miss, ...more].join('; ')}${said ? `; it says: ${said.replace(/\s+/g, ' ').slice(0, 500)}` : ''}`,
      });
  }
  const whoFaces: Array<[string, Whos]> = [
    ['interlock status', cliStatusWhos(status.text.out)],
    ['the /interlock status reply', tableWhos(reply.reply ?? '')],
    ['the maintainers page', pageWho(page.html)],
  ];
  if (r.lastWasStep) whoFaces.push(['the job summary', tableWhos(w.summary)]);
  if (issue.progress) whoFaces.push(['the progress comment', tableWhos(issue.progress)]);
  // A fault on purpose: the page drops every approver and misnames every reason.
  if (r.fault === 'who')
    for (const [n, x] of whoFaces[2]![1])
      whoFaces[2]![1].set(n, { ...x, approvedBy: [], reason: x.reason === 'gate' ? 'held' : 'gate' });
  for (const [name, got] of whoFaces)
    for (const what of whoDisagreements(`[${w.store}] ${name}`, w.run, whoTruth, got))
      out.push({ check: 'who', what });
  // (1) Liveness: a run not ended has a way on some face prints, or a step that moves it (ready, in flight).
  if (!ended(cp)) {
    const said = `${status.text.out}\n${reply.reply}\n${r.lastWasStep ? w.summary : ''}\n${issue.progress}\n${issue.notices}`;
    const printed =
      r.fault === 'liveness'
        ? []
        : [...said.matchAll(/(?:^|\s|`)(\/(?:approve|approve-rerun|settle|rerun-from) [a-z]+)/gm)].map(
            (m) => m[1]!,
          );
    const waiting = [...truth].map((x) => x.split(' ')[0]!);
    const ways = waiting.filter((n) => printed.some((p) => p.endsWith(` ${n}`)));
    const moving = cp.ready_nodes.length > 0 || cp.active_nodes.length > 0;
    if (waiting.length && !ways.length)
      out.push({
        check: 'liveness',
        what: `${waiting.join(', ')} wait(s) and no face prints a command for them`,
      });
    if (!waiting.length && !moving)
      out.push({
        check: 'liveness',
        what: `the run is ${cp.status} with nothing waiting, ready or in flight: no command moves it on but fail-run`,
      });
  }
  return out;
}

class Cmd implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly label: string,
    readonly act: (r: Real) => Promise<Call>,
    readonly step = false,
    /** On the git stores only (`mode: stuck` lists no check-run journals). */
    readonly gitOnly = false,
  ) {}
  check(m: Readonly<Model>): boolean {
    return !this.gitOnly || m.store !== 'check-run';
  }
  async run(m: Model, r: Real): Promise<void> {
    m.steps++;
    const before = r.w.journalText();
    const call = await this.act(r);
    r.lastWasStep = this.step && !call.killed;
    if (r.fault === 'refusal' && call.code === REFUSED && before !== undefined) r.w.putJournal(`${before}\n`);
    const checked = [...r.found.splice(0), ...(await checkAll(r, call.before?.get('') ?? before, call))];
    const found = checked.map((p) => ({
      ...p,
      what: `${p.what} (after: ${this.label})`,
    }));
    const { known: k, rest } = sortKnown(found, r.strict);
    for (const n of k) known.set(n, (known.get(n) ?? 0) + 1);
    if (rest.length)
      throw new Error(
        `after ${this.label} (exit ${call.code}) on ${r.w.store}:\n${rest.map((p) => `  (${p.check}) ${p.what}`).join('\n')}\noutput: ${(call.out + call.err).trim().slice(-1200)}`,
      );
  }
  toString(): string {
    return this.label;
  }
}

const node = fc.constantFrom(...NODES);
/** The first command of every sequence: a step that starts the run (its first node passes). */
const START = new Cmd(
  'a step (pass) starts the run',
  (r) => {
    for (const n of NODES) r.w.outcome(n, 'pass');
    return r.w.step(false);
  },
  true,
);
/** Where a comment is taken, and by whom: `mode: comment` or the App's server; two writers (`c` needs both). */
const face = fc.constantFrom<CommentFace>('action', 'app');
const commenter = fc.constantFrom<Commenter>(...COMMENTERS);

/** A person's comment through `f`: the App's server counts its deliveries. */
function say(r: Real, body: string, f: CommentFace, login: Commenter = PEOPLE.writer): Promise<Call> {
  if (f === 'action') return r.w.comment(body, { login });
  acted.app++;
  return r.w.viaApp(body, login);
}

/** How a comment's label names its face and person. */
const by = (f: CommentFace, login?: Commenter) =>
  ` (${[...(login ? [login] : []), f === 'app' ? "the App's server" : 'mode: comment'].join(', ')})`;

/**
 * (2) What `mode: stuck` shows agrees with the journal: it lists the run with its last event when the run has not
 * ended (every run is idle past `stuck-after: 0ms`), posts its notice on the subject for that stall, and lists no
 * run that ended or that it just recovered (a lost runner's attempt it recorded is reported as lost, not stuck).
 */
function stuckView(
  w: GitHubWorld,
  before: string | undefined,
  s: Call & { listed: StuckRun[]; startedAt: number },
): Problems {
  const out: Problems = [];
  const bad = (what: string) => out.push({ check: 'agreement', what: `[${w.store}] mode: stuck ${what}` });
  if (s.code !== 0) {
    bad(`failed (exit ${s.code}): ${(s.err || s.out).trim().split('\n').at(-1)}`);
    return out;
  }
  const mine = s.listed.filter((x) => x.run_id === w.run);
  const text = w.journalText();
  if (text === undefined) {
    if (mine.length) bad(`listed ${w.run}, which has no journal`);
    return out;
  }
  const j = parseJournal(text, w.run);
  const last = j.events.at(-1)!;
  const over = fold(j, loadGraphFile(join(w.ws, GRAPH))).checkpoint.ended !== null;
  if (over || text !== before) {
    if (mine.length)
      bad(`listed ${w.run} as stuck, but it ${over ? 'has ended' : 'had a lost runner recorded'}`);
    return out;
  }
  if (!mine.length) {
    // Its first listing may answer from the stale window before it began: a run written within it may be missed.
    const stale = w.pw.world.server.model.options.staleMs;
    if (Date.parse(last.at) < s.startedAt - stale - 500)
      bad(`did not list ${w.run}, which has not ended (its last event: ${last.type} at ${last.at})`);
    return out;
  }
  if (mine.length > 1 || mine[0]!.last_event !== last.type || mine[0]!.last_activity_at !== last.at)
    bad(
      `says ${w.run} last did ${mine.map((x) => `${x.last_event} at ${x.last_activity_at}`).join(', ')}; the journal: ${last.type} at ${last.at}`,
    );
  const mark = `<!-- interlock:stuck ${w.run} ${last.at} -->`;
  const notice = w.commentMarked(mark);
  if (notice === undefined) {
    bad(`listed ${w.run} but posted no notice (${mark}) on the subject`);
    return out;
  }
  // Its notice names who each node waits for, as every other face does: the same nodes, the same people.
  const graph = loadGraphFile(join(w.ws, GRAPH));
  const truth = whoOfState(fold(j, graph), graph);
  const said = noticeWhos(notice);
  const rows = (m: Whos) => [...m.keys()].sort().join(', ') || 'none';
  if (rows(said) !== rows(truth))
    bad(
      `'s notice lists ${rows(said)} waiting, the journal ${rows(truth)}: ${notice.replace(/\s+/g, ' ').slice(0, 500)}`,
    );
  for (const what of whoDisagreements(`[${w.store}] mode: stuck's notice`, w.run, truth, said))
    out.push({ check: 'who', what });
  return out;
}

function commands(): fc.Arbitrary<Array<fc.AsyncCommand<Model, Real>>> {
  const c = (label: string, act: (r: Real) => Promise<Call>, step = false, gitOnly = false) =>
    new Cmd(label, act, step, gitOnly);
  const step = fc.tuple(fc.constantFrom('pass' as const, 'fail' as const), fc.boolean()).map(([o, all]) =>
    c(
      `a step (${o}${all ? ', node: all' : ''})`,
      (r) => {
        for (const n of NODES) r.w.outcome(n, o);
        return r.w.step(all);
      },
      true,
    ),
  );
  return (
    fc
      .commands(
        [
          // A step three times as likely as any other command (as in the CLI's world): b's attempts, and its
          // spend, come soon enough for the daily cap to be met within a sequence.
          step,
          step,
          step,
          fc.constant(c('a step killed after its command', (r) => r.w.step(false, 'after-command'))),
          fc.constant(c('mode: recover', (r) => r.w.recover())),
          fc.constant(
            c(
              'mode: stuck (on its schedule)',
              async (r) => {
                const before = r.w.journalText();
                const s = await r.w.stuck();
                acted.stuck++;
                r.found.push(...stuckView(r.w, before, s));
                return s;
              },
              false,
              true,
            ),
          ),
          fc
            .tuple(node, face, commenter)
            .map(([n, f, p]) => c(`/approve ${n}${by(f, p)}`, (r) => say(r, `/approve ${n}`, f, p))),
          fc.tuple(node, fc.boolean(), face, commenter).map(([n, change, f, p]) =>
            c(`${change ? 'the graph changed, then ' : ''}/approve-rerun ${n}${by(f, p)}`, (r) => {
              if (change) r.w.changeGraph();
              return say(r, `/approve-rerun ${n}`, f, p);
            }),
          ),
          fc
            .tuple(node, face)
            .map(([n, f]) => c(`/settle ${n}${by(f)}`, (r) => say(r, `/settle ${n} checked by hand`, f))),
          face.map((f) => c(`/fail-run${by(f)}`, (r) => say(r, '/fail-run given up', f))),
          fc
            .tuple(node, face)
            .map(([n, f]) => c(`/rerun-from ${n}${by(f)}`, (r) => say(r, `/rerun-from ${n}`, f))),
          fc.constant(
            c(
              "b's budget hit (its agent reports $4 of $3)",
              async (r) => {
                r.w.cost(4);
                for (const n of NODES) r.w.outcome(n, 'pass');
                return r.w.step(true).finally(() => r.w.cost(1));
              },
              true,
            ),
          ),
          fc.tuple(fc.constantFrom('approve-rerun', 'settle', 'approve'), node).map(([verb, n]) =>
            c(`/${verb} ${n}, its job killed after the write and re-run on the same event`, async (r) => {
              const body = `/${verb} ${n}${verb === 'settle' ? ' checked by hand' : ''}`;
              const first = await r.w.comment(body, { failpoint: 'after-person-command-write' });
              if (!first.killed) return first;
              const before = r.w.journalText();
              const again = await r.w.comment(body, { again: true });
              return { ...again, before: new Map([['', before ?? '']]) };
            }),
          ),
        ],
        { maxCommands: Number(process.env.INTERLOCK_MODEL_COMMANDS ?? 5) },
      )
      // Every sequence starts the run: a command on no run is a refusal, and little more.
      .map((cs) => [START, ...cs])
  );
}

async function sequence(store: GitHubStore, cmds: Iterable<fc.AsyncCommand<Model, Real>>, fault: GhFault) {
  const w = await GitHubWorld.start(ROOT, store);
  const real: Real = { w, strict: STRICT || fault !== undefined, fault, lastWasStep: false, found: [] };
  const model: Model = { steps: 0, store };
  sequences++;
  try {
    await fc.asyncModelRun(() => ({ model, real }), cmds);
  } finally {
    if (process.env.INTERLOCK_MODEL_VERBOSE) {
      const events = parseJournal(w.journalText() ?? '{"events":[]}', w.run).events;
      process.stderr.write(
        `${store}: ${[...cmds].join(', ')}\n  journal: ${events.map((e) => `${e.type}${'node' in e ? ` ${e.node}` : ''}`).join(', ')}\n`,
      );
    }
    commandsRun += model.steps;
    reach(w);
    await w.close();
  }
}

const ALL: GitHubStore[] = ['run-branch', 'journal-branch', 'check-run'];
const STORES = (process.env.INTERLOCK_MODEL_STORES?.split(',') as GitHubStore[] | undefined) ?? ALL;
/** Each store its own sequences: the seed given, plus the store's place in ALL. */
const seedOf = (store: GitHubStore) => SEED + ALL.indexOf(store);

describe('the model-based test across the faces (bundled action, local GitHub)', () => {
  for (const store of STORES)
    it(`on ${store}: random sequences keep the run live, the faces agreeing, refusals writing nothing, effects once, the fold whole (seed ${SEED})`, async () => {
      try {
        await fc.assert(
          fc.asyncProperty(commands(), (cmds) => sequence(store, cmds, FAULT)),
          { numRuns: RUNS, seed: seedOf(store), endOnFailure: !!process.env.INTERLOCK_MODEL_NO_SHRINK },
        );
      } catch (e) {
        throw new Error(
          `${(e as Error).message}\n${String((e as Error).cause ?? '')}\n\nreplay: INTERLOCK_MODEL_SEED=${SEED} INTERLOCK_MODEL_STORES=${store} npx vitest run test/reliability/model-github.test.ts`,
        );
      }
    }, 600_000);
  // npm test's seed (every store, its default count) meets the daily cap and posts through the App's server: a
  // change to the generator or the world that loses either fails here rather than passes unseen.
  it.skipIf(FAULT !== undefined || STORES !== ALL || RUNS < 1)(
    `the seed's sequences reach the daily cap and post through the App's server (seed ${SEED})`,
    () => {
      reached.expectReached(
        `INTERLOCK_MODEL_SEED=${SEED} npx vitest run test/reliability/model-github.test.ts`,
      );
      expect(acted.app, "comments the App's server took").toBeGreaterThan(0);
    },
  );
});
