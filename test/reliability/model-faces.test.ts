// The model-based test across the faces (issue 45): random sequences of what people and runners do, run through
// the CLI on a local file journal (in-process; the bundle where a process must die), with five checks after
// every command (test/reliability/model-checks.ts). Seeded and shrinking: a failure prints its seed and the
// shrunk sequence; `INTERLOCK_MODEL_SEED=<seed>` replays it. `INTERLOCK_MODEL_RUNS` sets the number of sequences
// (npm run reliability runs thousands, strict); `INTERLOCK_MODEL_STRICT=1` fails on the seams main is known to
// have today too (KNOWN_SEAMS); `INTERLOCK_MODEL_FAULT=<check>` injects a fault that check must catch.
import { rmSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../crash/harness.js';
import { commands, type Fault, type Model, type Real } from './model-commands.js';
import { CapReach } from './model-reach.js';
import { CliWorld, worldRoot } from './model-world.js';

const RUNS = Number(process.env.INTERLOCK_MODEL_RUNS ?? 8);
// npm test runs the same sequences each time (a seam it meets fails every run, not one run in ten); npm run
// reliability draws a new seed each run and prints it.
const SEED = Number(process.env.INTERLOCK_MODEL_SEED ?? 45);
const FAULT = process.env.INTERLOCK_MODEL_FAULT as Fault;
const STRICT = process.env.INTERLOCK_MODEL_STRICT === '1';

beforeAll(requireBundle);

const ROOT = worldRoot();
// The CLI called in-process puts its attempts' temporary folders here too.
process.env.TMPDIR = ROOT;
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

let sequences = 0;
let commandsRun = 0;
const known = new Map<string, number>();
/** The daily cap's reach from the seed (model-reach.ts): the main run and its forks, not the other runs' spend. */
const reached = new CapReach();
const reach = (w: CliWorld) => reached.count(w.journals().values(), (id) => id.startsWith('m/'));
/** Sequences in which a node waited with one of its two approvals given: the faces compared on who approved it. */
let approvalsSeen = 0;

afterAll(() => {
  process.stderr.write(reached.line('model'));
  process.stderr.write(
    `model: ${approvalsSeen} sequence(s) had a node wait with one of its approvals given\n`,
  );
  if (known.size)
    process.stderr.write(
      `model: seams main has today, passed over (INTERLOCK_MODEL_STRICT=1 fails on them):\n${[...known].map(([k, n]) => `  ${n}× ${k}`).join('\n')}\n`,
    );
  // npm run reliability reads the count from here.
  const file = process.env.INTERLOCK_MODEL_REPORT;
  if (file)
    writeFileSync(
      file,
      JSON.stringify({
        sequences,
        commands: commandsRun,
        seed: SEED,
        reached,
        approvalsSeen,
        known: Object.fromEntries(known),
      }),
    );
});

async function sequence(cmds: Iterable<fc.AsyncCommand<Model, Real>>, fault: Fault): Promise<void> {
  const w = new CliWorld(ROOT);
  if (fault === 'effects') w.doubleEffects();
  const real: Real = { w, fault, log: [], known, found: [], strict: STRICT || fault !== undefined };
  const model: Model = { steps: 0 };
  // The report counts the sequences of the test itself, not the probes that break a rule on purpose.
  const counted = fault === FAULT;
  if (counted) sequences++;
  try {
    await fc.asyncModelRun(() => ({ model, real }), cmds);
  } finally {
    if (counted) {
      commandsRun += model.steps;
      reach(w);
      if (w.sawApproval) approvalsSeen++;
    }
    await w.cleanup();
  }
}

describe('the model-based test across the faces (CLI, local file)', () => {
  it(`random sequences of commands keep every run live, the faces agreeing, refusals writing nothing, effects once, the fold whole (seed ${SEED})`, async () => {
    try {
      await fc.assert(
        fc.asyncProperty(commands(), (cmds) => sequence(cmds, FAULT)),
        { numRuns: RUNS, seed: SEED, endOnFailure: false },
      );
    } catch (e) {
      throw new Error(
        `${(e as Error).message}\n${String((e as Error).cause ?? '')}\n\nreplay: INTERLOCK_MODEL_SEED=${SEED} npx vitest run test/reliability/model-faces.test.ts`,
      );
    }
    // The generator meets the daily cap from the seed, not by hand (the cap is $2, b spends $1 an attempt).
    if (FAULT === undefined && RUNS >= 8) {
      reached.expectReached(
        `INTERLOCK_MODEL_SEED=${SEED} npx vitest run test/reliability/model-faces.test.ts`,
      );
      // … and a node waiting with one of its two approvals given, so the faces are compared on who gave it.
      expect(approvalsSeen, 'sequences in which a node waited with an approval given').toBeGreaterThan(0);
    }
  }, 600_000);
});

describe('each check fails when its rule is broken on purpose', () => {
  // Sequences until one breaks the rule; the first that does fails with that check's name.
  const probe = (fault: Fault) =>
    fc.assert(
      fc.asyncProperty(commands(), (cmds) => sequence(cmds, fault)),
      { numRuns: 40, seed: 45, endOnFailure: true },
    );
  for (const fault of ['liveness', 'agreement', 'who', 'refusal', 'effects', 'fold'] as const)
    it.skipIf(FAULT !== undefined)(
      `a ${fault} fault is caught`,
      async () => {
        const e = await probe(fault).then(
          () => undefined,
          (e: Error) => e,
        );
        // fast-check keeps the command's own error (the checks' words) as the cause.
        expect(String(e?.cause)).toContain(`(${fault})`);
      },
      120_000,
    );
});
