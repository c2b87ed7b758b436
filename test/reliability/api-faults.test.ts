// GitHub API faults at the requests the Action and the app make, found in the request log of a normal run of
// each flow. Bounded here: three fault kinds per flow (every kind in more than one flow), at rotating requests,
// and one fault per flow that never clears (retries run out). `npm run reliability` runs every request × every fault, both ways.
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
  runFaultCases,
} from './api-faults.js';

/**
 * Three fault kinds per flow, rotating so that every kind strikes more than one flow, each at a request of its
 * own; and one fault per flow on every try.
 */
function bounded(cases: FaultCase[]): FaultCase[] {
  const out: FaultCase[] = [];
  FLOWS.forEach((flow, f) => {
    const once = cases.filter((c) => c.point.flow === flow && c.mode === 'once');
    const points = [...new Set(once.map((c) => `${c.point.kind}#${c.point.nth}`))];
    [0, 1, 2].forEach((j) => {
      const fault = FAULT_NAMES[(f * 3 + j) % FAULT_NAMES.length]!;
      const point = points[(f + j * 4) % points.length];
      const c = once.find((x) => `${x.point.kind}#${x.point.nth}` === point && x.fault === fault);
      if (c) out.push(c);
    });
    const every = cases.filter((c) => c.point.flow === flow && c.mode === 'every');
    if (every.length) out.push(every[(f * 5) % every.length]!);
  });
  return out;
}

let cases: FaultCase[] = [];
let results: FaultResult[] = [];
let baselines: Map<FlowName, Baseline>;

beforeAll(async () => {
  requireBundle();
  const all = await faultCases(FLOWS, { every: true });
  baselines = all.baselines;
  cases = bounded(all.cases);
  results = await runFaultCases(cases, baselines);
}, 900_000);

describe('GitHub API faults at the requests of each flow', () => {
  it('the sample covers every flow and every fault kind, once and with retries run out', () => {
    expect(new Set(cases.map((c) => c.point.flow))).toEqual(new Set(FLOWS));
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
