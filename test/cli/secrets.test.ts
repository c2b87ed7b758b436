// The journal never carries a secret of the step (issue 34), through the CLI too: a model key or GitHub token in
// the environment a node echoes into its outputs is journaled as [secret removed], with a warning naming where.
import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupSandboxes, requireBundle, sandbox } from '../crash/harness.js';

beforeAll(requireBundle);
afterEach(cleanupSandboxes);

const KEY = ['sk', 'ant', 'cli' + 'SecretModelKey'].join('-');

describe('the journal never carries a secret: the CLI', () => {
  it('a model key a node echoes into its output is journaled as the mark, and stderr says which output', async (ctx) => {
    const sb = sandbox(ctx, 'interlock-cli-secrets-');
    sb.write(
      'graph.yml',
      'interlock: 1\nname: leak\nnodes:\n  - id: a\n    run: echo "key=$ANTHROPIC_API_KEY" >> "$INTERLOCK_OUTPUT"\n',
    );
    const r = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 's'], { ANTHROPIC_API_KEY: KEY });
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(sb.path('.interlock/runs/s.json'), 'utf8');
    expect(text).not.toContain(KEY);
    expect(sb.journal('s').events.find((e) => e.type === 'NodeRecorded')).toMatchObject({
      outputs: { key: '[secret removed]' },
    });
    expect(r.stderr).toContain('a secret of the step was in NodeRecorded of "a" (outputs.key)');
  });
});
