// Usage and budgets through the built CLI (node dist/cli.js) in a temporary folder: usage from an agent's JSON
// result and from $INTERLOCK_USAGE, malformed usage ignored with a warning, an attempt over its node's budget
// failing, a run at its budget escalating instead of dispatching, and a person's approval raising it.
import { chmodSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupSandboxes, eventsOf, requireBundle, type Sandbox, sandbox } from '../crash/harness.js';

const AGENT = `#!/usr/bin/env bash
cat > /dev/null
printf '{"type":"system","subtype":"init"}\\n'
printf '{"type":"result","subtype":"success","is_error":false,"num_turns":%s,"result":"done","total_cost_usd":%s,"usage":{"input_tokens":40,"output_tokens":10},"modelUsage":{"claude-sonnet-4-5":{}}}\\n' "$TURNS" "$COST"
`;

const GRAPH = `interlock: 1
name: spend
budget: { cost_usd: 1 }
nodes:
  - id: draft
    prompt: draft it
    agent: ./agent.sh
    env: { COST: "0.30", TURNS: "12" }
    budget: { turns: 10 }
    retry:
      - env: { TURNS: "6" }
  - id: review
    depends_on: [draft]
    run: |
      echo '{"cost_usd": 0.45, "turns": 2}' > "$INTERLOCK_USAGE"
  - id: publish
    depends_on: [review]
    run: |
      echo 'not json' > "$INTERLOCK_USAGE"
      echo published >> published.log
`;

function setUp(sb: Sandbox): void {
  sb.write('graph.yml', GRAPH);
  sb.write('agent.sh', AGENT);
  chmodSync(sb.path('agent.sh'), 0o755);
}

beforeAll(requireBundle);
afterEach(cleanupSandboxes);

describe('usage and budgets through the CLI', () => {
  it('fails an attempt over its node budget, escalates the node the run cannot afford, and goes on once approved', async (ctx) => {
    const sb = sandbox(ctx, 'interlock-budget-');
    setUp(sb);

    const first = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'spend']);
    expect(first.code, first.stderr).not.toBe(0);
    // The failure line names the budget failure (it printed empty parentheses).
    expect(first.stdout + first.stderr).toMatch(
      /"draft" attempt 1 failed in [\d.]+s \(budget: the attempt used 12 turns/,
    );
    const journal = sb.journal('spend');
    expect(eventsOf(journal, 'NodeFailed', 'draft')[0]!.failures).toEqual([
      {
        check: 'budget',
        message: "the attempt used 12 turns, over the node's budget of 10 turns (budget.turns)",
      },
    ]);
    expect(eventsOf(journal, 'NodeRecorded', 'draft')[0]!.usage).toMatchObject({
      input_tokens: 40,
      output_tokens: 10,
      cost_usd: 0.3,
      turns: 6,
      model: 'claude-sonnet-4-5',
    });
    expect(eventsOf(journal, 'NodeRecorded', 'review')[0]!.usage).toMatchObject({ cost_usd: 0.45, turns: 2 });
    // 0.30 + 0.30 + 0.45 = $1.05 of $1.00: publish is escalated, never dispatched.
    expect(eventsOf(journal, 'NodeDispatched', 'publish')).toEqual([]);
    expect(eventsOf(journal, 'NodeEscalated', 'publish')).toHaveLength(1);

    const status = await sb.cli(['status', '--run-id', 'spend', '--json']);
    const cp = JSON.parse(status.stdout);
    expect(cp.escalated_nodes).toEqual(['publish']);
    expect(cp.usage).toMatchObject({
      cost_usd: 1.05,
      turns: 20,
      input_tokens: 80,
      output_tokens: 20,
      by_node: {
        draft: { cost_usd: 0.6, turns: 18 },
        review: { cost_usd: 0.45, turns: 2 },
        publish: { cost_usd: 0, turns: 0 },
      },
      budget: { limit: { cost_usd: 1 }, spent: { cost_usd: 1.05, turns: 20, tokens: 100 } },
    });
    const table = await sb.cli(['status', '--run-id', 'spend']);
    expect(table.stdout).toContain('$1.05 of $1.00 spent');
    expect(table.stdout).toMatch(/draft\s+completed\s+2\s+\S+\s+\$0\.60 · 18 turns · 100 tokens/);

    const approved = await sb.cli(['approve-rerun', 'publish', '--by', 'ann', '--run-id', 'spend']);
    expect(approved.code, approved.stderr).toBe(0);
    const resumed = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'spend']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(sb.lines('published.log')).toEqual(['published']);
    // Malformed usage is ignored with a warning; the attempt is recorded.
    expect(resumed.stdout + resumed.stderr).toContain('interlock: usage ignored: $INTERLOCK_USAGE: not JSON');
    expect(eventsOf(sb.journal('spend'), 'NodeRecorded', 'publish')[0]!.usage).toEqual({
      wall_ms: expect.any(Number),
    });
    expect((await sb.status('spend')).status).toBe('completed');
  });
});
