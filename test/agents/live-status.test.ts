// The agent live in the terminal (issue 38), through the built CLI with the real Claude Code against the scripted
// model server: `interlock run` prints a line per step, and `interlock status` shows the attempt's live view
// while it runs (and nothing of it once it ended); neither shows a secret of the step the agent put in a step.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { cleanupSandboxes, requireBundle, sandbox } from '../crash/harness.js';
import { agentHome, claudeBin, claudeEnv, missing } from '../support/agent-clis.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';

/** A GitHub token in the CLI's environment (no known shape: only the step's secrets remove it). */
const TOKEN = 'Tk7-cli-gh-token-not-a-known-shape-42';

let server: ModelServer | undefined;
beforeAll(requireBundle);
afterEach(async (ctx) => {
  await cleanupSandboxes(ctx);
  await server?.close();
  server = undefined;
});

describe.skipIf(missing('claude'))('interlock status while an agent works', () => {
  it('shows the last steps of the attempt in flight; run prints a line per step', async (ctx) => {
    server = await startModelServer({
      script: [
        {
          text: '',
          tools: [{ name: 'Bash', input: { command: 'echo one >> log.txt', description: 'one' } }],
        },
        {
          text: '',
          tools: [
            {
              name: 'Bash',
              input: { command: `sleep 4; echo two >> log.txt # ${TOKEN}`, description: 'two' },
            },
          ],
        },
        { text: 'Done.' },
      ],
    });
    const sb = sandbox(ctx, 'interlock-live-');
    const agent = [claudeBin!, '-p', '--allowedTools', 'Bash'].map(shellWord).join(' ');
    sb.write(
      'graph.yml',
      `interlock: 1\nname: live\nnodes:\n  - id: implement\n    engine: claude-code\n    agent: ${JSON.stringify(agent)}\n    prompt: Log two lines.\n    validates:\n      - file: log.txt\n`,
    );
    const env = { ...claudeEnv(server.url, agentHome('claude')), GH_TOKEN: TOKEN };
    const { exited } = sb.start(['run', 'graph.yml', '--all', '--run-id', 'l'], env);
    let seen = '';
    for (let i = 0; i < 40 && !seen; i++) {
      await new Promise((r) => setTimeout(r, 250));
      const s = await sb.cli(['status', '--run-id', 'l']);
      if (s.stdout.includes('the agent at work')) seen = s.stdout;
    }
    const r = await exited;
    expect(r.code, r.stderr).toBe(0);
    expect(seen).toMatch(/implement attempt 1: running for .* · \d+ turns?/);
    expect(seen).toMatch(/\n {2}Bash: (echo one|sleep 4; echo two) >> log.txt\n/);
    expect(r.stderr).toContain('interlock: implement · Bash: echo one >> log.txt');
    // The step that held the token: shown and printed without it.
    expect(r.stderr).toContain(
      'interlock: implement · Bash: sleep 4; echo two >> log.txt # [secret removed]',
    );
    expect(r.stderr.split('\n').filter((l) => l.startsWith('interlock: ') && l.includes(TOKEN))).toEqual([]);
    expect(seen).not.toContain(TOKEN);
    expect((await sb.cli(['status', '--run-id', 'l'])).stdout).not.toContain('the agent at work');
  });
});
