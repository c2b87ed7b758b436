// GitHub API faults at the requests the Action and the app make, found in the request log of a normal run of
// each flow (the maintainers' page and setup: api-faults-page.test.ts; their flows are recorded here too, so the
// inventory below sees every request src/ makes). Bounded here: one fault kind per flow (every kind in two
// flows), at a rotating request, and on every other flow a fault that never clears (retries run out). `npm run reliability` runs every point × every fault,
// both ways.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../crash/harness.js';
import {
  type Baseline,
  caseId,
  FAULT_NAMES,
  type FaultCase,
  type FaultResult,
  FLOWS,
  type FlowName,
  faultCases,
  flowSpec,
  OF_BEFORE,
  runFaultCases,
} from './api-faults.js';
import { FAULTED_ELSEWHERE, requestsInSource, unnamed } from './api-faults-coverage.js';

const ROOT_DIR = fileURLToPath(new URL('../..', import.meta.url));

import { recordPageFlows } from './api-faults-page.js';

/** One fault kind per flow, rotating, at a request of its own; and on every other flow, one on every try. */
function bounded(cases: FaultCase[]): FaultCase[] {
  const out: FaultCase[] = [];
  FLOWS.forEach((flow, f) => {
    const fault = FAULT_NAMES[f % FAULT_NAMES.length]!;
    const own = cases.filter((c) => c.point.flow === flow && c.mode === 'once');
    // The rotation's kind, or (where no request of the flow's own meets that kind) any kind the flow meets.
    const once = own.some((c) => c.fault === fault) ? own.filter((c) => c.fault === fault) : own;
    if (once.length) out.push(once[(f * 3) % once.length]!);
    const every = cases.filter((c) => c.point.flow === flow && c.mode === 'every');
    if (f % 2 === 0 && every.length) out.push(every[(f * 5) % every.length]!);
  });
  return out;
}

let all: FaultCase[] = [];
let pageKinds: string[] = [];
let cases: FaultCase[] = [];
let results: FaultResult[] = [];
let baselines: Map<FlowName, Baseline>;

/** The normal runs of every flow, recorded once for both blocks below. */
let recording: Promise<void> | undefined;
const record = () => {
  recording ??= (async () => {
    requireBundle();
    const [made, page] = await Promise.all([faultCases(FLOWS, { every: true }), recordPageFlows()]);
    baselines = made.baselines;
    all = made.cases;
    pageKinds = [...page.values()].flat();
  })();
  return recording;
};

describe('every GitHub request in src/ is in the fault suite', () => {
  beforeAll(record, 900_000);

  it("the flows (the Action's, the App's, the maintainers' page's and setup's) reach every GitHub request src/ makes", () => {
    const reached = new Set([...all.map((c) => c.point.kind), ...pageKinds].map(unnamed));
    const inSource = requestsInSource();
    // A request faulted by a test of its own: that test names it and injects faults (FAULTED_ELSEWHERE).
    const elsewhere = (k: string) => {
      const file = FAULTED_ELSEWHERE[k];
      if (!file) return false;
      const text = readFileSync(join(ROOT_DIR, file), 'utf8');
      return text.includes(`'${k}'`) && text.includes('faults.inject');
    };
    expect(inSource.filter((k) => !reached.has(unnamed(k)) && !elsewhere(k))).toEqual([]);
    expect(inSource.length).toBeGreaterThanOrEqual(45);
  });

  it('each flow leaves the run where the git store keeps it, and a face ends a run of before as one of today', () => {
    for (const flow of FLOWS.filter((f) => (flowSpec(f).store ?? 'git') === 'git'))
      expect([flow, baselines.get(flow)?.layout]).toEqual([flow, flowSpec(flow).layout ?? 'run-branch']);
    const before = FLOWS.filter((f) => f.endsWith(OF_BEFORE));
    expect(before.length).toBeGreaterThanOrEqual(7);
    for (const flow of before) {
      const today = flow.slice(0, -OF_BEFORE.length) as FlowName;
      expect([flow, baselines.get(flow)?.shape]).toEqual([flow, baselines.get(today)?.shape]);
    }
  });
});

describe('GitHub API faults at the requests of each flow', () => {
  beforeAll(async () => {
    await record();
    cases = bounded(all);
    results = await runFaultCases(cases, baselines);
  }, 900_000);

  it('the sample covers every flow that has a request of its own and every fault kind, once and with retries run out', () => {
    const own = new Set(all.map((c) => c.point.flow));
    expect(new Set(cases.map((c) => c.point.flow))).toEqual(own);
    expect(new Set(cases.map((c) => c.fault))).toEqual(new Set(FAULT_NAMES));
    expect(cases.some((c) => c.mode === 'every')).toBe(true);
  });

  it('nothing is lost, retries are bounded, and a step that gives up says what state the run is in', () => {
    const broken = results.filter((r) => r.outcome === 'broken');
    expect(broken.map((r) => `${r.id}: ${r.problems.join('; ')}`)).toEqual([]);
    expect(results.map(caseIdOf).sort()).toEqual(cases.map(caseId).sort());
  });
});

const caseIdOf = (r: FaultResult) => r.id;
