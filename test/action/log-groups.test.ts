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
    // The first attempt's group also says, once per step, that the node has the open network (no network:).
    expect(inside(1)).toEqual([
      'interlock: dispatched "flaky" attempt 1 (default)',
      expect.stringMatching(
        /^interlock: "flaky" has no network: in the graph, so its commands have the machine's open network/,
      ),
      'flaky says hi',
    ]);
    expect(inside(2)).toEqual(['interlock: dispatched "flaky" attempt 2 (default)', 'flaky says hi']);
    // The results are the step's summary: after each group, never inside one.
    const failed = lines.findIndex((l) => l.includes('"flaky" attempt 1 failed in'));
    const recorded = lines.findIndex((l) => l.includes('"flaky" attempt 2 recorded in'));
    expect(failed).toBeGreaterThan(lines.indexOf('::endgroup::'));
    expect(failed).toBeLessThan(lines.indexOf('::group::flaky · attempt 2 · default'));
    expect(recorded).toBeGreaterThan(lines.lastIndexOf('::endgroup::'));
  });

  it('an evidence command gets a group of its own after its attempt, and the failure excerpt of an escalated node is in the job summary', async () => {
    const ws = makeWorkspace({
      'g.yml': `interlock: 1
name: checked
nodes:
  - id: build
    run: echo built
    retry:
      - run: echo built again
      - run: echo built a third way
    validates:
      - command: bash check.sh
`,
      'check.sh': `seq 1 40 | sed 's/^/ok /'
test -f fixed || { echo 'Error: fixed is missing'; echo 'at check (check.sh:2)'; exit 1; }
`,
    });
    server.state.repo(FULL).addIssue({ number: 82, title: 'Checks', labels: [] });
    const r = await runStep(issueStep(server, ws, 82, 'go', { inputs: { graph: 'g.yml', node: 'all' } }));
    expect(r.stdout).toContain('escalated');
    const lines = r.stdout.split('\n');
    const marks = lines.filter((l) => l.startsWith('::group::') || l.startsWith('::endgroup::'));
    expect(marks).toEqual(
      [1, 2, 3].flatMap((n) => {
        const title = `build · attempt ${n} · ${n === 1 ? 'default' : `retry[${n - 2}]`}`;
        return [
          `::group::${title}`,
          '::endgroup::',
          `::group::${title} · command bash check.sh`,
          '::endgroup::',
        ];
      }),
    );
    // The whole output is in the check's group: all 40 lines.
    const from = lines.indexOf(marks[2]!);
    const inside = lines.slice(from + 1, lines.indexOf('::endgroup::', from));
    expect(inside.filter((l) => /^ok \d+$/.test(l))).toHaveLength(40);
    expect(inside).toContain('Error: fixed is missing');
    // The job summary shows the last attempt's excerpt, and where the whole output is.
    expect(r.summary).toContain(
      '<details><summary>Output of <code>command bash check.sh</code>, build attempt 3 (whole output: step log)</summary>',
    );
    expect(r.summary).toMatch(
      /\[… 22 lines cut …\]\nok 23\n[\s\S]*\nok 40\nError: fixed is missing\nat check \(check.sh:2\)/,
    );
  });
});
