// The agent live in the progress comment (issue 38), through the bundled action against the local GitHub, with
// the real Claude Code and Codex CLIs against the scripted model server: a twelve-step script yields live edits
// of the progress comment that show the last steps, at most one per interval (1 s here, 30 s by default), the
// final view last, then the run's own state in place of the live view; the agent's hostile message is inert.
import { chmodSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { LIVE_MARKER } from '../../src/render/live/live.js';
import { FULL, issueStep, OWNER, REPO } from '../action/world.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import {
  agentHome,
  CODEX_MODEL,
  claudeBin,
  claudeEnv,
  codexBin,
  codexConfigArgs,
  codexEnv,
  copilotBin,
  GEMINI_MODEL,
  geminiBin,
  missing,
} from '../support/agent-clis.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { type ModelServer, type ScriptedTurn, startModelServer } from '../support/model-server.js';

const HOSTILE =
  'Done @alice </details><img src=x onerror=alert(1)> [click](https://evil.example) www.evil.example';

let github: GitHubServer;
let model: ModelServer | undefined;
beforeAll(async () => {
  github = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
});
afterAll(async () => {
  await github?.close();
  await model?.close();
});

/** The agent's own folder, open to the node user the action runs the node as (root runs nodes as another user). */
function home(prefix: string): string {
  const dir = agentHome(prefix);
  chmodSync(dir, 0o777);
  return dir;
}

function graph(engine: string, agent: string): string {
  return `interlock: 1
name: live
nodes:
  - id: implement
    engine: ${engine}
    agent: ${JSON.stringify(agent)}
    prompt: Run the eleven steps, then say you are done.
    budget: { turns: 40 }
    validates:
      - file: log.txt
`;
}

/** Eleven tool calls (one a turn), then the hostile message: twelve steps the live view may show. */
function script(tool: (i: number) => ScriptedTurn['tools']): ScriptedTurn[] {
  return [
    ...Array.from({ length: 11 }, (_, i) => ({ text: '', tools: tool(i + 1) })),
    { text: HOSTILE, usage: { input_tokens: 100, output_tokens: 10 } },
  ];
}

async function liveRun(issue: number, engine: string, agent: string, env: Record<string, string>) {
  github.state.repo(FULL).addIssue({ number: issue, title: 'Live', labels: [] });
  const ws = makeWorkspace({ 'g.yml': graph(engine, agent) });
  const mark = github.requests.mark();
  const started = Date.now();
  const r = await runStep(
    issueStep(github, ws, issue, 'go', {
      inputs: { graph: 'g.yml', node: 'all' },
      env: { ...env, INTERLOCK_LIVE_EDIT_SECONDS: '1' },
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  const writes = github.requests
    .filter({ path: /\/issues\/(\d+\/)?comments/ })
    .filter((q) => q.seq > mark && (q.method === 'PATCH' || q.method === 'POST'))
    .map((q) => (q.body as { body?: string }).body ?? '');
  const live = writes.filter((b) => b.includes(LIVE_MARKER));
  const comment = github.state
    .repo(FULL)
    .commentsOn(issue)
    .find((c) => c.body.startsWith('<!-- interlock:progress'));
  return { r, seconds, live, comment };
}

function expectLiveView(run: Awaited<ReturnType<typeof liveRun>>, step: RegExp) {
  const { r, seconds, live, comment } = run;
  expect(r.code, r.stdout).toBe(0);
  // Paced: one edit per second at most, and the final one.
  expect(live.length).toBeGreaterThanOrEqual(1);
  expect(live.length).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
  const last = live.at(-1)!;
  expect(last).toContain('Agent done');
  expect(last).toMatch(step);
  expect(last).toContain('earlier step');
  // The agent's message is shown, inert: no mention, no tag, no link of its own.
  expect(last).toContain('Said: Done @\u200balice &lt;/details&gt;&lt;img src=x onerror=alert(1)&gt;');
  expect(last).not.toMatch(/@alice|<img|\]\(https:\/\/|https:\/\/evil/);
  expect(last.match(/<\/details>/g)?.length ?? 0).toBe(last.match(/<details>/g)?.length ?? 0);
  // The run's own state replaced the live view when the step ended.
  expect(comment!.body).not.toContain(LIVE_MARKER);
  expect(comment!.body).toContain('<summary>Timeline</summary>');
  // The step log has a line per step.
  expect(r.stdout).toMatch(/interlock: implement · \w+: /);
}

describe.skipIf(missing('claude'))('the live view of Claude Code', () => {
  it('twelve steps: paced edits, the last steps, the final view, the message inert', {
    timeout: 180_000,
  }, async () => {
    model = await startModelServer({
      script: script((i) => [
        { name: 'Bash', input: { command: `echo step-${i} >> log.txt`, description: 'log' } },
      ]),
    });
    const agent = [claudeBin!, '-p', '--allowedTools', 'Bash'].map(shellWord).join(' ');
    const run = await liveRun(71, 'claude-code', agent, claudeEnv(model.url, home('claude')));
    expectLiveView(run, /- Bash: echo step-11 &gt;&gt; log.txt/);
    await model.close();
    model = undefined;
  });
});

describe.skipIf(missing('codex'))('the live view of Codex', () => {
  it('twelve steps: paced edits, the last steps, the final view, the message inert', {
    timeout: 180_000,
  }, async () => {
    model = await startModelServer({
      script: script((i) => [{ name: 'exec_command', input: { cmd: `echo step-${i} >> log.txt` } }]),
    });
    const agent = [
      codexBin!,
      ...codexConfigArgs(model.url),
      'exec',
      '-m',
      CODEX_MODEL,
      '--skip-git-repo-check',
      '--sandbox',
      'workspace-write',
    ]
      .map(shellWord)
      .join(' ');
    const run = await liveRun(72, 'codex', agent, codexEnv(home('codex')));
    expectLiveView(run, /- Shell: .*echo step-11/);
    await model.close();
    model = undefined;
  });
});

describe.skipIf(missing('gemini'))('the live view of Gemini CLI', () => {
  it('twelve steps: paced edits, the last steps, the final view, the message inert', {
    timeout: 240_000,
  }, async () => {
    model = await startModelServer({
      script: script((i) => [{ name: 'run_shell_command', input: { command: `echo step-${i} >> log.txt` } }]),
    });
    const agent = [geminiBin!, '--approval-mode', 'yolo'].map(shellWord).join(' ');
    // Its key behind the key proxy; interlock gives the node's fresh home the setting that selects it.
    const env = { GEMINI_API_KEY: 'scripted-gemini-key', GOOGLE_GEMINI_BASE_URL: model.url, GEMINI_MODEL };
    const run = await liveRun(73, 'gemini', agent, env);
    // Markdown's underscores escaped: the tool's name is the agent's text too.
    expectLiveView(run, /- run\\_shell\\_command: echo step-11 &gt;&gt; log.txt/);
    await model.close();
    model = undefined;
  });
});

describe.skipIf(missing('copilot'))('the live view of Copilot CLI', () => {
  it('twelve steps: paced edits, the last steps, the final view, the message inert', {
    timeout: 240_000,
  }, async () => {
    model = await startModelServer({
      script: script((i) => [
        { name: 'bash', input: { command: `echo step-${i} >> log.txt`, description: 'log' } },
      ]),
    });
    const agent = [copilotBin!, '--allow-all'].map(shellWord).join(' ');
    const env = {
      COPILOT_PROVIDER_TYPE: 'anthropic',
      COPILOT_PROVIDER_BASE_URL: model.url,
      COPILOT_PROVIDER_API_KEY: 'scripted-copilot-key',
      COPILOT_MODEL: 'claude-sonnet-4.5',
    };
    const run = await liveRun(74, 'copilot', agent, env);
    expectLiveView(run, /- bash: echo step-11 &gt;&gt; log.txt/);
    await model.close();
    model = undefined;
  });
});
