// Soft bounds through the CLI: past soft_timeout_minutes the attempt is journaled overdue and the CLI says so;
// the node goes on and completes (issue 26, item 7).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupSandboxes, eventsOf, requireBundle, sandbox } from '../crash/harness.js';

beforeAll(requireBundle);
afterEach(cleanupSandboxes);

describe('soft bounds through the CLI', () => {
  it('prints the notice, journals NodeOverdue while the attempt runs, and the node completes', async (ctx) => {
    const sb = sandbox(ctx, 'interlock-soft-');
    sb.write(
      'graph.yml',
      `interlock: 1
name: soft
nodes:
  - id: slow
    run: sleep 2; echo done > done.txt
    soft_timeout_minutes: 0.005
    validates:
      - file: done.txt
`,
    );
    const r = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'soft']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /interlock: "slow" attempt 1 is overdue: [\d.]+ minutes, past its soft_timeout_minutes of 0\.005\./,
    );
    const j = sb.journal('soft');
    expect(eventsOf(j, 'NodeOverdue', 'slow')).toHaveLength(1);
    expect(eventsOf(j, 'NodeRecorded', 'slow')).toHaveLength(1);
    expect((await sb.status('soft')).status).toBe('completed');
  });
});
