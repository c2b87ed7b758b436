// vitest's global setup: every test run gets a temporary folder of its own, as TMPDIR for the tests and every
// process they start (the CLI, the bundled Action, node commands), and removes it when the run ends. Tests clean up
// what they make, but a killed runner, an isolated node's home or a workspace left for a failing test to show
// would otherwise stay in /tmp: about 73 folders a run before this.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function setup(): () => void {
  // A short name: paths under it end up in payloads with limits of their own (test/reliability/injection.ts).
  const root = mkdtempSync(join(tmpdir(), 'il-tests-'));
  // As /tmp is: node commands that run as a user of their own (isolation) make their folders here too.
  chmodSync(root, 0o1777);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    if (!process.env.INTERLOCK_KEEP_TEST_TMP) rmSync(root, { recursive: true, force: true });
  };
}
