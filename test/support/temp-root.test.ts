// `npm test` leaves nothing in /tmp: every test and every process it starts writes under one folder of the run's
// own (vitest's global setup), which the run removes at its end.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { setup } from './temp-root.js';

it("the tests' TMPDIR is a folder of this run's own", () => {
  expect(tmpdir()).toMatch(/\/il-tests-[^/]+$/);
});

it('the global setup makes a folder as open as /tmp, and its teardown removes it with all it holds', () => {
  const outer = process.env.TMPDIR;
  const teardown = setup();
  const root = process.env.TMPDIR!;
  expect(root).not.toBe(outer);
  expect(statSync(root).mode & 0o7777).toBe(0o1777);
  mkdirSync(join(root, 'left-behind', 'deep'), { recursive: true });
  teardown();
  expect(existsSync(root)).toBe(false);
  expect(process.env.TMPDIR).toBe(outer);
});
