// Every value the action's `status` output can take is listed in action.yml and the action reference, and nothing else is:
// both are compared with the code's one exported list.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ACTION_STATUSES } from '../../src/action/report/status.js';

const read = (p: string) => readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');
/** The distinct `code` words of a text. */
const words = (text: string) => [...new Set([...text.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]!))].sort();
const expected = [...ACTION_STATUSES].sort();

describe('the status output', () => {
  it("action.yml's description of status lists exactly the code's statuses", () => {
    const meta = parse(read('action.yml')) as { outputs: { status: { description: string } } };
    expect(words(meta.outputs.status.description)).toEqual(expected);
  });

  it("the action reference's section on status lists exactly the code's statuses", () => {
    const page = read('docs/action-reference.md');
    const start = page.indexOf('### `status` (output)');
    expect(start).toBeGreaterThanOrEqual(0);
    const section = page.slice(start + '### `status` (output)'.length).split('\n### ')[0]!;
    expect(words(section)).toEqual(expected);
  });
});
