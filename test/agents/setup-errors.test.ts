// The agent's own failure in words (issue 38), through the built CLI: an agent command that is not found, and the
// real Codex CLI refusing a flag `engine: codex` appends as well, are setup errors: one attempt, its stderr in
// the failure, escalated at once with the fix; `interlock validate` warns of the flag before any run.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SETUP_CHECK } from '../../src/protocol/engines/agent-setup.js';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { cleanupSandboxes, eventsOf, requireBundle, sandbox } from '../crash/harness.js';
import {
  agentHome,
  CODEX_MODEL,
  codexBin,
  codexConfigArgs,
  codexEnv,
  missing,
} from '../support/agent-clis.js';

beforeAll(requireBundle);
afterEach(cleanupSandboxes);

function graph(engine: string, agent: string): string {
  return `interlock: 1
name: setup
nodes:
  - id: implement
    engine: ${engine}
    agent: ${JSON.stringify(agent)}
    prompt: Copy a.txt to b.txt.
    validates:
      - file: b.txt
`;
}

describe('an agent command that cannot work as set up', () => {
  it('not found: one attempt, escalated at once, the failure says so and names the fix', async (ctx) => {
    const sb = sandbox(ctx, 'interlock-setup-');
    sb.write('graph.yml', graph('claude-code', 'interlock-no-such-agent -p'));
    const r = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 's']);
    expect(r.code).toBe(3);
    const j = sb.journal('s');
    expect(eventsOf(j, 'NodeDispatched', 'implement')).toHaveLength(1);
    const failure = eventsOf(j, 'NodeFailed', 'implement')[0]!.failures[0]!;
    expect(failure.check).toBe(SETUP_CHECK);
    expect(failure.message).toMatch(/^exited 127: .*interlock-no-such-agent.*not found/);
    expect(failure.message).toContain('the agent command "interlock-no-such-agent" was not found');
    const report = eventsOf(j, 'NodeEscalated', 'implement')[0]!.report;
    expect(report.setup).toBe(failure.message);
    // The status a person reads carries the words, not only the exit code.
    const status = await sb.cli(['status', '--run-id', 's']);
    expect(status.stdout).toContain('was not found: install it where the node runs');
  });
});

describe.skipIf(missing('codex'))('engine: codex with --json on the agent line too', () => {
  const agent = () =>
    [codexBin!, ...codexConfigArgs('http://127.0.0.1:9'), 'exec', '--json', '-m', CODEX_MODEL]
      .map(shellWord)
      .join(' ');

  it('validate warns; the run escalates at once with the CLI own words and the fix', async (ctx) => {
    const sb = sandbox(ctx, 'interlock-setup-');
    sb.write('graph.yml', graph('codex', agent()));
    const v = await sb.cli(['validate', 'graph.yml']);
    expect(v.code).toBe(0);
    expect(v.stderr).toContain('`engine: codex` appends --json itself; remove it from `agent:`');
    const r = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'x'], codexEnv(agentHome('codex')));
    expect(r.code).toBe(3);
    const j = sb.journal('x');
    expect(eventsOf(j, 'NodeDispatched', 'implement')).toHaveLength(1);
    const failure = eventsOf(j, 'NodeFailed', 'implement')[0]!.failures[0]!;
    expect(failure).toMatchObject({ check: SETUP_CHECK });
    expect(failure.message).toContain("exited 2: error: the argument '--json' cannot be used multiple times");
    expect(failure.message).toContain('remove `--json` from `agent:`');
    expect(failure.message).not.toContain('PATH aliases');
  });
});
