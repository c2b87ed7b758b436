// An agent node's raw stream (the engine's JSON events) stays in the attempt's log: `interlock run` prints one
// line per step of the agent, and only `--verbose` prints the stream too. Through the built CLI with the real
// Claude Code against the scripted model server.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { cleanupSandboxes, requireBundle, sandbox } from '../crash/harness.js';
import { agentHome, claudeBin, claudeEnv, missing } from '../support/agent-clis.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';

let server: ModelServer | undefined;
beforeAll(requireBundle);
afterEach(async (ctx) => {
  await cleanupSandboxes(ctx);
  await server?.close();
  server = undefined;
});

/** A line the CLI echoed from the node's output that is one of the engine's JSON events. */
const RAW = /^ {2}│ \{"type":"/m;

describe.skipIf(missing('claude'))("an agent's raw stream in the terminal", () => {
  it('run shows the steps and keeps the stream in the log; --verbose shows the stream too', async (ctx) => {
    const script = () => [
      { text: '', tools: [{ name: 'Bash', input: { command: 'echo one >> log.txt', description: 'one' } }] },
      { text: 'Done.' },
    ];
    server = await startModelServer({ script: [...script(), ...script()] });
    const sb = sandbox(ctx, 'interlock-stream-');
    const agent = [claudeBin!, '-p', '--allowedTools', 'Bash'].map(shellWord).join(' ');
    sb.write(
      'graph.yml',
      `interlock: 1\nname: quiet\nnodes:\n  - id: implement\n    engine: claude-code\n    agent: ${JSON.stringify(agent)}\n    prompt: Log a line.\n    validates:\n      - file: log.txt\n`,
    );
    const env = claudeEnv(server.url, agentHome('claude'));
    const plain = await sb.start(['run', 'graph.yml', '--all', '--run-id', 'p'], env).exited;
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toContain('interlock: implement · Bash: echo one >> log.txt');
    expect(plain.stderr).not.toMatch(RAW);
    const log = readFileSync(join(sb.dir, '.interlock/runs/p.logs/implement-1.log'), 'utf8');
    expect(log).toMatch(/^\{"type":"/m);

    const verbose = await sb.start(['run', 'graph.yml', '--all', '--run-id', 'v', '--verbose'], env).exited;
    expect(verbose.code, verbose.stderr).toBe(0);
    expect(verbose.stderr).toContain('interlock: implement · Bash: echo one >> log.txt');
    expect(verbose.stderr).toMatch(RAW);
  });
});
