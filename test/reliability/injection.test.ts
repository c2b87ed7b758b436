// Injection: every payload at once (command substitution, backticks, ${{ }}, quotes, newlines, workflow
// commands) through every path that reaches a node, via the CLI and via the bundled Action; a canary command
// in each must never run. `npm run reliability` runs each payload on its own as well.
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../crash/harness.js';
import { actionInjection, cliInjection, payloads } from './injection.js';

const ALL = (dir: string) => Object.values(payloads(dir)).join(' ');

beforeAll(() => requireBundle());

describe('untrusted text is never executed', () => {
  it('via the CLI: inputs and event fields into env, prompt, outputs, conditions, evidence and the run id', async () => {
    const r = await cliInjection('every payload at once', ALL);
    expect(r.problems).toEqual([]);
    expect(r.canaries).toEqual([]);
    expect(r.paths.length).toBeGreaterThanOrEqual(8);
  }, 120_000);

  it('via the Action: titles, comment bodies, branch names and run ids, into every path and the log', async () => {
    const r = await actionInjection('every payload at once', ALL);
    expect(r.problems).toEqual([]);
    expect(r.canaries).toEqual([]);
    expect(r.paths.length).toBeGreaterThanOrEqual(15);
  }, 300_000);
});
