// The same hostile node under the plain single-job setup (isolation: none, GH_TOKEN given to every node, the
// checkout's credentials kept): it pins what stays possible there, for SECURITY.md's table. With
// HOSTILE_TABLE_OUT it also runs the recommended setup (and HOSTILE_BASELINE_DIST's build) and writes
// docs/RELIABILITY.md's table. Needs \`npm run build\`.
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTEMPTS, hostileTable } from './hostile-node.js';
import { BASELINE, outcomes, runSetup } from './hostile-node-setups.js';

/** The plain single-job setup: isolation off, GH_TOKEN given to every node. */
const PLAIN_INPUTS = { isolation: 'none', 'node-credentials': 'GH_TOKEN' };

beforeAll(async () => {
  await runSetup('plain', PLAIN_INPUTS);
  if (process.env.HOSTILE_TABLE_OUT) await runSetup('recommended');
  if (BASELINE) await runSetup('before', PLAIN_INPUTS);
}, 120_000);

describe('a hostile node under the plain single-job setup (isolation: none, GH_TOKEN given to nodes)', () => {
  it('reaches exactly these paths', () => {
    const reached = ATTEMPTS.filter((a, i) => !a.racy && !outcomes.plain[i]!.blocked).map((a) => a.attempt);
    expect(reached).toEqual(PLAIN_OPEN);
  });
});

/** What the plain setup still allows: the credentials a same-user process can reach, and what they can do. */
const PLAIN_OPEN: string[] = [
  'append to every file in `$RUNNER_TEMP`',
  '`GH_TOKEN` from its environment (the step env holds one)',
  "`/proc/<action pid>/environ` (the action's token)",
  "`.git/config` (actions/checkout's extraheader)",
  '`~/.git-credentials`',
  "rewrite the action's bundle (its post step runs with the token)",
  'write `runs/…` on the journal branch with every token found',
  'create a check run `ci/hostile` with every token found',
  '`/proc/<key proxy pid>/environ` (the real model keys: the proxy is the action process)',
  "`/proc/<key proxy pid>/mem` (the proxy's memory; no Yama here)",
];

afterAll(() => {
  const out = process.env.HOSTILE_TABLE_OUT;
  if (out && outcomes.plain.length && outcomes.recommended.length)
    writeFileSync(out, `${hostileTable(outcomes)}\n`);
});
