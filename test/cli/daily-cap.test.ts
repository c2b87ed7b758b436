// The daily cost cap through the built CLI (node dist/cli.js): with `budget: { daily_usd: 3 }` in
// .github/interlock.yml, a first run's agent spends $3 (reported through $INTERLOCK_USAGE); a second run the same
// day runs its plain command node but holds its agent node for a person, naming the cap, the day's spend, what
// could not be counted and the command; once approved, it goes on.
import { chmodSync, mkdirSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupSandboxes, eventsOf, requireBundle, sandbox } from '../crash/harness.js';

const AGENT = `#!/usr/bin/env bash
cat > /dev/null
echo '{"cost_usd": 3, "turns": 1}' > "$INTERLOCK_USAGE"
echo worked >> work.log
`;

const GRAPH = `interlock: 1
name: capped
nodes:
  - id: prep
    run: echo prepped >> prep.log
  - id: work
    depends_on: [prep]
    prompt: do the work
    agent: ./agent.sh
`;

beforeAll(requireBundle);
afterEach(cleanupSandboxes);

describe('the daily cost cap through the CLI', () => {
  it('holds a second run of the day at its agent node and lets it go on after approval', async (ctx) => {
    const sb = sandbox(ctx, 'interlock-daily-cap-');
    sb.write('graph.yml', GRAPH);
    sb.write('agent.sh', AGENT);
    chmodSync(sb.path('agent.sh'), 0o755);
    mkdirSync(sb.path('.github'));
    sb.write('.github/interlock.yml', 'budget: { daily_usd: 3 }\n');

    const first = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'one']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('other runs spent $0.00');
    sb.write('.interlock/runs/broken.json', 'not a journal');

    const second = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'two']);
    expect(second.code, second.stderr).not.toBe(0);
    expect(second.stderr).toContain('counted from 1 of 2 runs; not counted: .interlock/runs/broken.json');
    // The plain command ran; the agent did not.
    expect(sb.lines('prep.log')).toEqual(['prepped', 'prepped']);
    expect(sb.lines('work.log')).toEqual(['worked']);
    const two = sb.journal('two');
    expect(eventsOf(two, 'NodeDispatched', 'work')).toEqual([]);
    const [escalated] = eventsOf(two, 'NodeEscalated', 'work');
    expect(escalated!.report.budget).toMatchObject({ limit: { daily_usd: 3 }, spent: { cost_usd: 3 } });
    expect(escalated!.report.needed).toContain('The repository is at its daily cost cap ($3.00 spent on');
    expect(escalated!.report.needed).toContain('spend counted from 1 of 2 other runs');
    expect(escalated!.report.needed).toContain('`interlock approve-rerun work --run-id two`');

    // Run again without approval: still held, still not dispatched.
    const again = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'two']);
    expect(again.code).not.toBe(0);
    expect(eventsOf(sb.journal('two'), 'NodeDispatched', 'work')).toEqual([]);

    const approved = await sb.cli(['approve-rerun', 'work', '--by', 'ann', '--run-id', 'two']);
    expect(approved.code, approved.stderr).toBe(0);
    const resumed = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'two']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(sb.lines('work.log')).toEqual(['worked', 'worked']);
    expect((await sb.status('two')).status).toBe('completed');
  });
});
