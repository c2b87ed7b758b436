// The CLI keeps the repository's git configuration the repository's, as the Action does: a node that plants
// `core.fsmonitor` in .git/config (and a pre-commit hook) runs its planting itself, and a later node's
// `git status` and `git commit` run neither; the CLI says what it put back.
import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupSandboxes, eventsOf, requireBundle, sandbox } from '../crash/harness.js';

const GRAPH = `interlock: 1
name: plant
nodes:
  - id: plant
    run: |
      git config core.fsmonitor "$PWD/planted.sh"
      cp planted.sh .git/hooks/pre-commit
      git status --porcelain > /dev/null
  - id: later
    depends_on: [plant]
    run: |
      git status --porcelain > /dev/null
      git -c user.name=n -c user.email=n@example.com commit -q --allow-empty -m later
`;

beforeAll(requireBundle);
afterEach(cleanupSandboxes);

describe('git through the CLI', () => {
  it('a later node never runs what an earlier one planted in .git/, and the CLI says what it put back', async (ctx) => {
    const sb = sandbox(ctx, 'interlock-git-guard-');
    sb.write('graph.yml', GRAPH);
    sb.write('planted.sh', '#!/bin/sh\necho "$INTERLOCK_NODE" >> ran.txt\ncat > /dev/null 2>&1 || true\n');
    chmodSync(sb.path('planted.sh'), 0o755);
    const git = (...a: string[]) => execFileSync('git', a, { cwd: sb.path('.'), stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    git(
      '-c',
      'user.name=c',
      '-c',
      'user.email=c@example.com',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'initial',
    );
    const r = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'plant']);
    expect(r.code, r.stderr).toBe(0);
    expect(eventsOf(sb.journal('plant'), 'NodeRecorded').map((e) => e.node)).toEqual(['plant', 'later']);
    // The planting was live for the node that made it, and ran for no one after.
    expect(sb.lines('ran.txt')).toEqual(['plant']);
    expect(r.stderr).toMatch(/put back \.git\/config, \.git\/hooks\/pre-commit/);
  });
});
