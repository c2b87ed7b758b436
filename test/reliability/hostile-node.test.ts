// A hostile node through the bundled action under the recommended setup, which is the defaults: nodes as a user of
// their own (isolation: auto), GH_TOKEN granted to another node only, no credential in the checkout. Every attempt
// (test/reliability/hostile-node.ts) must have no effect. Needs root (nodes run as interlock-node) and
// \`npm run build\`. The plain setup (isolation: none) is test/reliability/hostile-node-isolation-none.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { ATTEMPTS } from './hostile-node.js';
import { outcomes, PLANTED, reports, runSetup } from './hostile-node-setups.js';

beforeAll(() => runSetup('recommended'), 120_000);

describe('a hostile node under the recommended setup', () => {
  it.each(ATTEMPTS.map((a, i) => [a.attempt, i] as const))('%s: has no effect', (_name, i) => {
    const o = outcomes.recommended[i]!;
    expect(o.what).toBeTruthy();
    expect(o.blocked, o.what).toBe(true);
  });
  it('the node did run, and said what it found', () => {
    expect(reports.recommended!.report.get('env INPUT_TOKEN')).toBe('none');
    expect(reports.recommended!.step.runner.stopped).toBe(false);
    expect(reports.recommended!.step.runner.errors).toEqual([]);
  });
  it('the key proxy served the node its model call, with the real key upstream', () => {
    const r = reports.recommended!;
    expect(r.report.get('proxy with the placeholder')).toBe('200');
    const legit = r.model.filter((m) => m.headers['x-hostile'] === 'legit');
    expect(legit.map((m) => [m.path, m.headers['x-api-key']])).toEqual([['/v1/messages', PLANTED.anthropic]]);
  });
});
