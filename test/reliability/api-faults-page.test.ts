// GitHub API faults at the maintainers' page's requests and setup's manifest conversion (api-faults-page.ts):
// every fault kind at each request only the page or setup makes, one fault at each other request of its flows.
// The page answers a failed or lost GitHub answer with what failed and what to do; nothing is lost or done twice.
import { beforeAll, describe, expect, it } from 'vitest';
import { FAULT_NAMES } from './api-faults.js';
import {
  type PageCase,
  type PageFlow,
  type PageResult,
  pageCaseId,
  pageCases,
  pageOwn,
  recordPageFlows,
  runPageCases,
} from './api-faults-page.js';

let recorded: Map<PageFlow, string[]>;
let cases: PageCase[] = [];
let results: PageResult[] = [];

beforeAll(async () => {
  recorded = await recordPageFlows();
  cases = pageCases(recorded);
  results = await runPageCases(cases);
}, 300_000);

describe("GitHub API faults at the maintainers' page and setup", () => {
  it("the flows make the page's own requests; together they meet every fault kind", () => {
    const own = [...new Set([...recorded.values()].flat().filter(pageOwn))].sort();
    expect(own).toEqual([
      'GET /user',
      'GET /user/installations',
      'GET /user/installations/{installation_id}/repositories',
      'POST /app-manifests/{code}/conversions',
      'POST /login/oauth/access_token',
    ]);
    for (const kind of own) expect(cases.filter((c) => c.kind === kind).length).toBeGreaterThanOrEqual(2);
    const ownCases = cases.filter((c) => pageOwn(c.kind));
    expect(new Set(ownCases.map((c) => c.fault))).toEqual(new Set(FAULT_NAMES));
  });

  it('every failure is answered with what failed and what to do; nothing is lost or done twice', () => {
    const broken = results.filter((r) => r.outcome === 'broken');
    expect(broken.map((r) => `${r.id}: ${r.problems.join('; ')}`)).toEqual([]);
    expect(results.map((r) => r.id).sort()).toEqual(cases.map(pageCaseId).sort());
    // Not every fault is absorbed by a retry: the clear error is met, not only assumed.
    expect(results.some((r) => r.outcome === 'error shown')).toBe(true);
  });
});
