// Each attempt's log (interlock's lines and the node's output) is one collapsible group in the step log, run as
// a runner runs the bundle; the step's result lines stay outside the groups.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { FULL, issueStep, OWNER, REPO } from './world.js';

// Attempt 1 fails, attempt 2 passes; the output ends without a newline, so `::endgroup::` must start its own line.
const GRAPH = `interlock: 1
name: groups
nodes:
  - id: flaky
    run: |
      printf 'flaky says hi'
      if [ "$INTERLOCK_ATTEMPT" = 1 ]; then exit 1; fi
`;

let server: GitHubServer;
beforeAll(async () => {
  server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
  server.state.repo(FULL).addIssue({ number: 81, title: 'Groups', labels: [] });
});
afterAll(async () => server?.close());

describe('log groups', () => {
  it('a failed and a passing attempt each open and close exactly one group, in order', async () => {
    const ws = makeWorkspace({ 'g.yml': GRAPH });
    const r = await runStep(issueStep(server, ws, 81, 'go', { inputs: { graph: 'g.yml', node: 'all' } }));
    expect(r.code, r.stdout).toBe(0);
    const lines = r.stdout.split('\n');
    const marks = lines.filter((l) => l.startsWith('::group::') || l.startsWith('::endgroup::'));
    expect(marks).toEqual([
      '::group::flaky · attempt 1 · default',
      '::endgroup::',
      '::group::flaky · attempt 2 · default',
      '::endgroup::',
    ]);
    // Inside a group the text sits between stop-commands and its resume token (src/action/log-guard.ts).
    const guardLine = /^::(stop-commands::)?interlock-[0-9a-f]{32}(::)?$/;
    const inside = (attempt: number) => {
      const from = lines.indexOf(`::group::flaky · attempt ${attempt} · default`);
      return lines.slice(from + 1, lines.indexOf('::endgroup::', from)).filter((l) => !guardLine.test(l));
    };
    expect(inside(1)).toEqual(['interlock: dispatched "flaky" attempt 1 (default)', 'flaky says hi']);
    expect(inside(2)).toEqual(['interlock: dispatched "flaky" attempt 2 (default)', 'flaky says hi']);
    // The results are the step's summary: after each group, never inside one.
    const failed = lines.findIndex((l) => l.includes('"flaky" attempt 1 failed in'));
    const recorded = lines.findIndex((l) => l.includes('"flaky" attempt 2 recorded in'));
    expect(failed).toBeGreaterThan(lines.indexOf('::endgroup::'));
    expect(failed).toBeLessThan(lines.indexOf('::group::flaky · attempt 2 · default'));
    expect(recorded).toBeGreaterThan(lines.lastIndexOf('::endgroup::'));
  });
});
