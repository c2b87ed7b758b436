// One session across the run (issue 26, item 5) with the real CLIs against the scripted model server: the second
// node of a session is started with the first node's session, its request carries the earlier messages, and a
// retry starts again from the session the last completed node left, not from its failed attempt's.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { cleanupSandboxes, eventsOf, requireBundle, type Sandbox, sandbox } from '../crash/harness.js';
import {
  agentHome,
  CODEX_MODEL,
  claudeBin,
  claudeEnv,
  codexBin,
  codexConfigArgs,
  codexEnv,
  copilotBin,
  copilotEnv,
  geminiBin,
  geminiEnv,
  missing,
} from '../support/agent-clis.js';
import { type ModelServer, type ScriptedTurn, startModelServer } from '../support/model-server.js';

let server: ModelServer | undefined;
beforeAll(requireBundle);
afterEach(async (ctx) => {
  await cleanupSandboxes(ctx);
  await server?.close();
  server = undefined;
});

const command = (words: string[]) => words.map(shellWord).join(' ');

// plan and build share a session; build's check fails once (no marker yet), then passes.
function graph(engine: string, agent: string): string {
  return `interlock: 1
name: sessions
defaults:
  engine: ${engine}
  agent: ${JSON.stringify(agent)}
nodes:
  - id: plan
    session: work
    prompt: PLAN-PROMPT remember the word kumquat.
  - id: build
    session: work
    depends_on: [plan]
    prompt: BUILD-PROMPT which word did I ask you to remember?
    validates:
      - command: test -f marker || { touch marker; exit 1; }
`;
}

async function world(ctx: { task: { id: string } }, script: ScriptedTurn[]): Promise<Sandbox> {
  server = await startModelServer({ script });
  return sandbox(ctx, 'interlock-session-');
}

const said = (i: number) => {
  const b = server!.calls[i]!.body!;
  return JSON.stringify(b.messages ?? b.input ?? b.contents);
};

describe.skipIf(missing('claude'))('sessions with Claude Code', () => {
  it("continues plan's session in build (a fork of it), and a retry starts again from plan's, not the failed attempt's", async (ctx) => {
    const sb = await world(ctx, [
      { text: 'PLAN-ANSWER noted.' },
      { text: 'BUILD-ANSWER-1' },
      { text: 'BUILD-ANSWER-2' },
    ]);
    sb.write('graph.yml', graph('claude-code', command([claudeBin!, '-p'])));
    const r = await sb.cli(
      ['run', 'graph.yml', '--all', '--run-id', 's'],
      claudeEnv(server!.url, agentHome('claude')),
    );
    expect(r.code, r.stderr).toBe(0);
    const j = sb.journal('s');
    const plan = eventsOf(j, 'NodeRecorded', 'plan')[0]!;
    const failed = eventsOf(j, 'NodeFailed', 'build')[0]!;
    const build = eventsOf(j, 'NodeRecorded', 'build')[0]!;
    expect(plan.resumed_session).toBeUndefined();
    expect(failed.resumed_session).toBe(plan.session_id);
    expect(build.resumed_session).toBe(plan.session_id);
    expect(new Set([plan.session_id, failed.session_id, build.session_id]).size).toBe(3);
    // build's requests carry plan's messages (its prompt is in no envelope); the retry's does not carry the
    // failed attempt's.
    expect(said(1)).toContain('PLAN-PROMPT');
    expect(said(1)).toContain('PLAN-ANSWER');
    expect(said(2)).toContain('PLAN-ANSWER');
    expect(said(2)).not.toContain('BUILD-ANSWER-1');
  });
});

// The engines that resume a session in place (the same id), one table: build resumes plan's session, its request
// carries plan's turn, and each node's usage is its own (Codex and Copilot report the whole session, 250 / 25 here:
// interlock subtracts what the earlier attempts used; Gemini CLI counts each run on its own).
const IN_PLACE = [
  {
    engine: 'codex',
    cli: 'codex' as const,
    agent: () =>
      command([
        codexBin!,
        ...codexConfigArgs(server!.url),
        'exec',
        '-m',
        CODEX_MODEL,
        '--skip-git-repo-check',
      ]),
    env: () => codexEnv(agentHome('codex')),
  },
  {
    engine: 'gemini',
    cli: 'gemini' as const,
    agent: () => command([geminiBin!]),
    env: () => geminiEnv(server!.url, agentHome('gemini')),
  },
  {
    engine: 'copilot',
    cli: 'copilot' as const,
    agent: () => command([copilotBin!, '--allow-all']),
    env: () => copilotEnv(server!.url, agentHome('copilot')),
  },
];
for (const e of IN_PLACE)
  describe.skipIf(missing(e.cli))(`sessions with ${e.engine}`, () => {
    it("resumes plan's session in place in build and counts only build's own usage", async (ctx) => {
      const sb = await world(ctx, [
        { text: 'PLAN-ANSWER noted.', usage: { input_tokens: 100, output_tokens: 10 } },
        { text: 'BUILD-ANSWER', usage: { input_tokens: 150, output_tokens: 15 } },
      ]);
      // build passes at once here: a marker is already there.
      sb.write('marker', '');
      sb.write('graph.yml', graph(e.engine, e.agent()));
      const r = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 's'], e.env());
      expect(r.code, r.stderr).toBe(0);
      const j = sb.journal('s');
      const plan = eventsOf(j, 'NodeRecorded', 'plan')[0]!;
      const build = eventsOf(j, 'NodeRecorded', 'build')[0]!;
      expect(build.resumed_session).toBe(plan.session_id);
      expect(build.session_id).toBe(plan.session_id);
      // plan's own prompt: not in the envelope (which tells plan's final message), only in the resumed session.
      expect(said(1)).toContain('PLAN-PROMPT');
      expect(said(1)).toContain('PLAN-ANSWER');
      expect(plan.usage).toMatchObject({ input_tokens: 100, output_tokens: 10 });
      expect(build.usage).toMatchObject({ input_tokens: 150, output_tokens: 15 });
    }, 90_000);
  });
