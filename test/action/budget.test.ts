// Usage and budgets through the bundled action, run as a runner runs it: a prompt node's agent prints a Claude
// Code JSON result, a run node writes $INTERLOCK_USAGE; an attempt over its node's budget fails saying so, and
// once the run is at its budget the next node is escalated instead of dispatched.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { eventsOf, FULL, issueStep, OWNER, REPO, readJournal, routeLabel, validJournal } from './world.js';

// Stands in for `claude -p --output-format json`: reads its prompt, prints a result whose cost depends on the attempt.
const AGENT = `#!/usr/bin/env bash
cat > /dev/null
cost=0.62; [ "$INTERLOCK_ATTEMPT" = 1 ] || cost=0.40
printf '{"type":"result","subtype":"success","is_error":false,"num_turns":3,"result":"done","total_cost_usd":%s,"usage":{"input_tokens":100,"cache_read_input_tokens":900,"output_tokens":50},"modelUsage":{"claude-sonnet-4-5":{}}}\\n' "$cost"
`;

const GRAPH = `interlock: 1
name: budget
budget: { cost_usd: 1.5 }
nodes:
  - id: plan
    prompt: plan the change
    agent: ./agent.sh
    budget: { cost_usd: 0.5 }
  - id: build
    depends_on: [plan]
    run: |
      echo '{"cost_usd": 0.7, "turns": 4, "model": "gpt-5-codex"}' > "$INTERLOCK_USAGE"
  - id: ship
    depends_on: [build]
    run: echo shipped >> effects.log
`;
const GRAPH_FILE = '.github/interlock/budget.yml';
const RUN = 'budget/issue-7';

let server: GitHubServer;
const ws = makeWorkspace({
  '.github/interlock.yml': routeLabel('agent:budget', GRAPH_FILE),
  [GRAPH_FILE]: GRAPH,
  'agent.sh': AGENT,
});

beforeAll(async () => {
  server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
  server.state.repo(FULL).addIssue({ number: 7, title: 'Ship it', labels: ['agent:budget'] });
});
afterAll(async () => server?.close());

describe('usage and budgets in the bundled action', () => {
  it('fails an attempt over its node budget, records usage, and escalates the node the run cannot afford', async () => {
    const r = await runStep(issueStep(server, ws, 7, 'agent:budget', { inputs: { node: 'all' } }));
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.outputs, r.stdout + r.stderr).toMatchObject({ status: 'escalated' });

    const journal = readJournal(server, RUN);
    const state = validJournal(journal, join(ws, GRAPH_FILE));
    const [failed] = eventsOf(journal, 'NodeFailed', 'plan');
    expect(failed!.failures).toEqual([
      {
        check: 'budget',
        message: "the attempt used $0.62, over the node's budget of $0.50 (budget.cost_usd)",
      },
    ]);
    expect(failed!.usage).toMatchObject({
      input_tokens: 1000,
      output_tokens: 50,
      cost_usd: 0.62,
      turns: 3,
      model: 'claude-sonnet-4-5',
    });
    expect(eventsOf(journal, 'NodeRecorded', 'build')[0]!.usage).toMatchObject({
      cost_usd: 0.7,
      turns: 4,
      model: 'gpt-5-codex',
    });
    // ship was never dispatched: the run had spent $1.72 of $1.50.
    expect(eventsOf(journal, 'NodeDispatched', 'ship')).toEqual([]);
    const [escalated] = eventsOf(journal, 'NodeEscalated', 'ship');
    expect(escalated!.report.budget).toEqual({
      limit: { cost_usd: 1.5 },
      spent: expect.objectContaining({ cost_usd: 1.72, turns: 10 }),
      by_node: {
        plan: expect.objectContaining({ cost_usd: 1.02 }),
        build: expect.objectContaining({ cost_usd: 0.7 }),
      },
    });
    expect(state.checkpoint.escalated_nodes).toEqual(['ship']);
    expect(state.checkpoint.usage).toMatchObject({
      cost_usd: 1.72,
      turns: 10,
      input_tokens: 2000,
      output_tokens: 100,
    });

    expect(r.summary).toContain('$1.72 of $1.50 spent');
    const progress = server.state
      .repo(FULL)
      .commentsOn(7)
      .find((c) => c.body.includes('<!-- interlock:progress budget/issue-7 -->'));
    expect(progress?.body).toContain('$1.72 of $1.50 spent');
    expect(progress?.body).toContain(
      '**`ship` is escalated** instead of being dispatched: the run is at its budget',
    );
    // The report says what each node spent since the budget was last raised.
    expect(progress?.body).toContain('**Budget:** cost_usd: 1.5. Spent since the budget was last raised:');
    expect(progress?.body).toMatch(/\| plan \| \$1\.02 \| 2,100 tokens \| 6 turns \| [\d.]+ minutes \|/);
  });
});
