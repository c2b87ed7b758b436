// The agent command's own failure in words (issue 38): the first lines of its stderr in the failure, and a setup
// error (not found, a usage error of the engine's CLI) escalated at once with its fix instead of spending retries.
import { describe, expect, it } from 'vitest';
import { engineFlagWarnings } from '../../src/cli/commands/validate.js';
import { fold } from '../../src/journal/fold.js';
import {
  agentExitFailure,
  duplicateEngineFlags,
  SETUP_CHECK,
  stderrHead,
} from '../../src/protocol/engines/agent-setup.js';
import { graph, graphText, Sim } from './sim.js';

const exit = (code: number) => ({ check: 'exit', message: `exited ${code}` });
const CODEX_USAGE = [
  'WARNING: proceeding, even though we could not create PATH aliases: Refusing to create helper binaries',
  "error: the argument '--json' cannot be used multiple times",
  '',
  'Usage: codex exec [OPTIONS] [PROMPT]',
  '       codex exec [OPTIONS] <COMMAND> [ARGS]',
].join('\n');

describe('the agent command failure in words', () => {
  it('quotes the first lines of stderr that say something, without the noise every run prints', () => {
    expect(stderrHead(CODEX_USAGE)).toBe(
      "error: the argument '--json' cannot be used multiple times\nUsage: codex exec [OPTIONS] [PROMPT]\ncodex exec [OPTIONS] <COMMAND> [ARGS]",
    );
    const plain = agentExitFailure(exit(1), {
      exitCode: 1,
      stderr: 'TypeError: fetch failed\n  at x\n  at y\n  at z',
      agent: 'claude -p',
      engine: 'claude-code',
    });
    expect(plain).toEqual({ check: 'exit', message: 'exited 1: TypeError: fetch failed · at x · at y' });
  });

  it('a command not found is a setup error naming the fix', () => {
    const f = agentExitFailure(exit(127), {
      exitCode: 127,
      stderr: 'sh: 1: claude: not found\n',
      agent: 'claude -p',
      engine: 'claude-code',
    });
    expect(f.check).toBe(SETUP_CHECK);
    expect(f.message).toBe(
      'exited 127: sh: 1: claude: not found. A setup error, not retried: the agent command "claude" was not found: install it where the node runs (on the PATH of the node\'s user), or give its full path in `agent:`',
    );
  });

  it("an engine CLI's usage error is a setup error naming the flag given twice", () => {
    const f = agentExitFailure(exit(2), {
      exitCode: 2,
      stderr: CODEX_USAGE,
      agent: 'codex exec --json --skip-git-repo-check',
      engine: 'codex',
    });
    expect(f.check).toBe(SETUP_CHECK);
    expect(f.message).toContain("exited 2: error: the argument '--json' cannot be used multiple times");
    expect(f.message).toContain('`engine: codex` appends `--json -` itself: remove `--json` from `agent:`');
    // Without an engine interlock adds no argument: exit 2 is the agent's own business, retried.
    expect(agentExitFailure(exit(2), { exitCode: 2, stderr: CODEX_USAGE, agent: 'codex exec' }).check).toBe(
      'exit',
    );
  });

  it("Copilot CLI's and Gemini CLI's own failures to start are setup errors naming what to set", () => {
    // Each stderr as the CLI printed it here (Copilot CLI 1.0.102, Gemini CLI 0.61.0).
    const copilot = agentExitFailure(exit(1), {
      exitCode: 1,
      stderr:
        'Error: No authentication information found.\n\nCopilot can be authenticated with GitHub using an OAuth Token',
      agent: 'copilot --allow-all',
      engine: 'copilot',
    });
    expect(copilot.check).toBe(SETUP_CHECK);
    expect(copilot.message).toContain(
      'Copilot CLI has no GitHub login and no model provider: give it COPILOT_PROVIDER_BASE_URL',
    );
    const model = agentExitFailure(exit(1), {
      exitCode: 1,
      stderr:
        'BYOK providers require an explicit model. Run `copilot help providers` for configuration details.',
      agent: 'copilot',
      engine: 'copilot',
    });
    expect(model.message).toContain('needs a model: set COPILOT_MODEL');
    const auth = agentExitFailure(exit(41), {
      exitCode: 41,
      stderr:
        'YOLO mode is enabled. All tool calls will be automatically approved.\nInvalid auth method selected.',
      agent: 'gemini --approval-mode yolo',
      engine: 'gemini',
    });
    expect(auth.check).toBe(SETUP_CHECK);
    expect(auth.message).toContain('{"security":{"auth":{"selectedType":"gemini-api-key"}}}');
    const usage = agentExitFailure(exit(1), {
      exitCode: 1,
      stderr: 'Unknown arguments: bogus-flag, bogusFlag\nUsage: gemini [options] [command]',
      agent: 'gemini --bogus-flag',
      engine: 'gemini',
    });
    expect(usage.check).toBe(SETUP_CHECK);
    expect(usage.message).toContain(
      'the gemini CLI refused its arguments: fix `agent:` (interlock appends `--output-format stream-json --skip-trust` for `engine: gemini`)',
    );
    // Without an engine, the same exit is the command's own: retried.
    expect(
      agentExitFailure(exit(41), { exitCode: 41, stderr: 'Invalid auth method selected.', agent: 'gemini' })
        .check,
    ).toBe('exit');
  });

  it('validate warns where the agent line gives a flag the engine appends', () => {
    expect(duplicateEngineFlags('copilot --allow-all --output-format json', 'copilot')).toEqual([
      '--output-format',
    ]);
    expect(duplicateEngineFlags('gemini --skip-trust --approval-mode yolo', 'gemini')).toEqual([
      '--skip-trust',
    ]);
    expect(duplicateEngineFlags('claude -p --verbose --output-format=json', 'claude-code')).toEqual([
      '--output-format',
      '--verbose',
    ]);
    const g = graph(
      graphText(`  - id: implement
    engine: codex
    agent: codex exec --json
    prompt: Fix it.
  - id: review
    engine: claude-code
    agent: claude -p
    prompt: Review it.`),
    );
    expect([...new Set(engineFlagWarnings(g))]).toEqual([
      'node "implement" (default): `engine: codex` appends --json itself; remove it from `agent:` (the agent\'s CLI may refuse a flag given twice)',
    ]);
  });
});

describe('rule: a setup error escalates its node at once, its retries unspent', () => {
  const g = graph(graphText('  - id: implement\n    run: "true"'));

  it('escalates on the first attempt, with the fix in the report, and the fold agrees', () => {
    const sim = new Sim(g);
    sim.dispatch();
    sim.fail('implement', [{ check: SETUP_CHECK, message: 'exited 127: claude: not found. fix it' }]);
    const p = sim.state.nodes.get('implement')!;
    expect(p.state).toBe('escalated');
    expect(p.attempts).toBe(1);
    expect(p.report?.setup).toBe('exited 127: claude: not found. fix it');
    expect(sim.cp.escalated_nodes).toEqual(['implement']);
    // One more attempt once a person fixed the setup and approved a rerun.
    sim.approve('implement');
    expect(sim.dispatch().attempt).toBe(2);
  });

  it('an ordinary failure is retried', () => {
    const sim = new Sim(g);
    sim.dispatch();
    sim.fail('implement', [{ check: 'exit', message: 'exited 1: boom' }]);
    expect(sim.state.nodes.get('implement')!.state).toBe('pending');
  });

  it('the fold refuses a setup escalation of a node that did not just fail', () => {
    const sim = new Sim(g);
    sim.append([
      {
        type: 'NodeEscalated',
        node: 'implement',
        report: { attempted: [], failed: [], approaches_tried: [], needed: 'x', setup: 'made up' },
      },
    ]);
    expect(() => fold(sim.journal, g)).toThrow('has not used its last allowed attempt');
  });
});
