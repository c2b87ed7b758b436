// The live progress comment takes the agent's steps through the door (issue 46), through the bundled action
// against the local GitHub, with the real Claude Code CLI against the scripted model server: an agent granted
// GH_TOKEN puts it in its tool calls and its text, with links, an image and HTML around it. No edit of the
// progress comment (GitHub keeps each one in its history), no other request to GitHub, no job summary and no line
// interlock writes to the step log carries the token; each edit, rendered as GitHub renders Markdown, has no link or image of the
// agent's. As root and through passwordless sudo (the runner's user, as on GitHub's hosted runners). Needs `npm run build`.
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { LIVE_MARKER } from '../../src/render/live/live.js';
import { FULL, issueStep, OWNER, REPO } from '../action/world.js';
import { requireBundle } from '../crash/harness.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { agentHome, claudeBin, claudeEnv, missing } from '../support/agent-clis.js';
import { renderedShape } from '../support/gfm.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { giveTo, noSudoRunner, sudoRunner } from '../support/sudo-runner.js';

/** The granted token: no known token shape, so only the step's secrets can remove it. */
const TOKEN = 'Tk7-granted-gh-token-not-a-known-shape-93';
const HOSTILE =
  '[All checks passed: approve the rerun here](https://evil.example/approve) ![p](https://evil.example/p.png) <img src="https://evil.example/t.png"> @alice';

let github: GitHubServer;
let model: ModelServer | undefined;
beforeAll(async () => {
  github = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
});
afterAll(async () => {
  await github?.close();
  await model?.close();
});

const GRAPH = `interlock: 1
name: live-secret
nodes:
  - id: implement
    engine: claude-code
    agent: AGENT
    prompt: Use the token, then say you are done.
    budget: { turns: 20 }
    validates:
      - file: log.txt
`;

const setups = [
  { name: 'as root', sudo: false, issue: 81, skip: undefined },
  { name: 'through passwordless sudo', sudo: true, issue: 82, skip: noSudoRunner() },
];

describe.skipIf(missing('claude')).each(setups)(
  'the live comment of an agent that holds its granted token, $name',
  (setup) => {
    it.skipIf(setup.skip)(
      'no edit, request, summary or log line carries the token; no link or image of the agent renders',
      {
        timeout: 180_000,
      },
      async () => {
        requireBundle();
        await model?.close();
        model = await startModelServer({
          script: [
            ...[1, 2, 3].map((i) => ({
              text: `Using ${TOKEN} now ${HOSTILE}`,
              tools: [
                {
                  name: 'Bash',
                  input: { command: `echo "step ${i} ${TOKEN} ${HOSTILE}" >> log.txt`, description: 'log' },
                },
              ],
            })),
            { text: `Done with ${TOKEN}. ${HOSTILE}`, usage: { input_tokens: 100, output_tokens: 10 } },
          ],
        });
        const home = agentHome('claude');
        chmodSync(home, 0o777);
        const agent = [claudeBin!, '-p', '--allowedTools', 'Bash'].map(shellWord).join(' ');
        github.state.repo(FULL).addIssue({ number: setup.issue, title: 'Live secret', labels: [] });
        const ws = makeWorkspace({ 'g.yml': GRAPH.replace('AGENT', JSON.stringify(agent)) });
        const env: Record<string, string> = {
          ...claudeEnv(model.url, home),
          GH_TOKEN: TOKEN,
          INTERLOCK_LIVE_EDIT_SECONDS: '1',
        };
        let as = {};
        if (setup.sudo) {
          // As a hosted runner runs the action: the checkout, the job's temporary folder and the home are the runner's.
          const user = sudoRunner();
          const runnerTemp = mkdtempSync(join(tmpdir(), 'interlock-job-temp-'));
          for (const p of [ws, runnerTemp, user.home]) giveTo(p, user);
          Object.assign(env, { RUNNER_TEMP: runnerTemp, HOME: user.home });
          as = { as: { uid: user.uid, gid: user.gid, home: user.home } };
        }
        const mark = github.requests.mark();
        const r = await runStep(
          issueStep(github, ws, setup.issue, 'go', {
            inputs: { graph: 'g.yml', node: 'all', 'node-credentials': 'GH_TOKEN=implement' },
            env,
            ...as,
          }),
        );
        expect(r.code, r.stdout).toBe(0);
        const sent = github.requests.filter({ since: mark });
        const edits = sent
          .filter(
            (q) => /\/issues\/(\d+\/)?comments/.test(q.path) && (q.method === 'PATCH' || q.method === 'POST'),
          )
          .map((q) => (q.body as { body?: string }).body ?? '');
        const live = edits.filter((b) => b.includes(LIVE_MARKER));
        // The agent's steps reached the comment: the test sees what it means to see.
        expect(live.length).toBeGreaterThanOrEqual(1);
        expect(live.at(-1)).toContain('secret removed');
        expect(live.at(-1)).toContain('evil.example');
        // Not in any edit, nor in any other request to GitHub, the job summary or the step log.
        for (const q of sent) expect(JSON.stringify(q.body ?? '')).not.toContain(TOKEN);
        expect(r.summary).not.toContain(TOKEN);
        // The lines interlock writes to the step log (the node's own output is the node's, masked by the runner).
        const ours = r.stdout.split('\n').filter((l) => l.startsWith('interlock: '));
        expect(ours.filter((l) => l.includes(' · Said: '))).toHaveLength(4);
        for (const l of ours) expect(l).not.toContain(TOKEN);
        // Each edit as GitHub renders it: no link to, or image from, what the agent wrote.
        for (const body of edits) {
          const { elements } = renderedShape(body);
          expect(elements.filter((e) => e.tag === 'img' || /evil/.test(e.attrs.href ?? ''))).toEqual([]);
        }
        await model.close();
        model = undefined;
      },
    );
  },
);
