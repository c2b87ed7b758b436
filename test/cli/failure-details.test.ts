// A failed check tells the retry, the escalation report and the comment what failed: the failing assertion from
// an excerpt of the check's output (its first error lines and its last lines), not the last three lines of a
// stack trace; and the whole output is kept in a log file per check under .interlock/ (issue 26, item 1).
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseGraph } from '../../src/graph/load/load.js';
import { fold } from '../../src/journal/fold.js';
import { attentionComment } from '../../src/render/markdown.js';
import { cleanupSandboxes, eventsOf, requireBundle, sandbox } from '../crash/harness.js';

// The agent keeps each attempt's prompt and context, and never fixes sum.js.
const AGENT = `#!/usr/bin/env bash
cat > "prompt-$INTERLOCK_ATTEMPT.txt"
cp "$INTERLOCK_CONTEXT" "context-$INTERLOCK_ATTEMPT.json"
echo "agent: attempt $INTERLOCK_ATTEMPT"
`;

const TEST = `const assert = require('node:assert');
const sum = require('./sum.js');
for (let i = 0; i < 30; i++) console.log('ok ' + i + ' - case ' + i);
assert.strictEqual(sum(2, 3), 5);
`;

const GRAPH = `interlock: 1
name: details
nodes:
  - id: implement
    prompt: Make sum.test.js pass.
    agent: ./agent.sh
    validates:
      - command: node sum.test.js
`;

beforeAll(requireBundle);
afterEach(cleanupSandboxes);

describe('failure details through the CLI', () => {
  it("gives the retry's prompt and context the failing assertion, and keeps the whole output in a log per check", async (ctx) => {
    const sb = sandbox(ctx, 'interlock-details-');
    sb.write('graph.yml', GRAPH);
    sb.write('agent.sh', AGENT);
    chmodSync(sb.path('agent.sh'), 0o755);
    sb.write('sum.js', 'module.exports = (a, b) => a + b + 1;\n');
    sb.write('sum.test.js', TEST);

    const r = await sb.cli(['run', 'graph.yml', '--all', '--run-id', 'details']);
    expect(r.code).not.toBe(0);
    const journal = sb.journal('details');
    const failure = eventsOf(journal, 'NodeFailed', 'implement')[0]!.failures[0]!;
    // Before: `exit 1: } |  | Node.js v20.20.2`, the last three lines of the trace.
    expect(failure.message).toBe(
      'exit 1: AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 6 !== 5',
    );
    expect(failure.message).not.toMatch(/\} \|\s*\| Node\.js/);
    expect(failure.excerpt).toContain('6 !== 5');
    expect(failure.excerpt).toMatch(/^\[… 30 lines cut …\]/);

    // Attempt 2 is told: in its context file and in its prompt.
    const context = JSON.parse(sb.read('context-2.json') ?? '{}') as {
      previous: { failures: { excerpt: string }[] };
    };
    expect(context.previous.failures[0]!.excerpt).toContain('6 !== 5');
    expect(sb.read('prompt-2.txt')).toContain('6 !== 5');

    // The whole output, passing cases included, is in the check's log file.
    expect(failure.log).toBe('.interlock/runs/details.logs/implement-1.check-1.log');
    const whole = readFileSync(join(sb.dir, failure.log as string), 'utf8');
    expect(whole).toContain('ok 3 - case 3');
    expect(whole).toContain('6 !== 5');

    // The escalation report and the comment carry the last attempt's excerpt.
    const escalated = eventsOf(journal, 'NodeEscalated', 'implement')[0]!;
    expect(JSON.stringify(escalated.report.failed.at(-1))).toContain('6 !== 5');
    const graph = parseGraph({ path: 'graph.yml', text: GRAPH });
    const comment = attentionComment(fold(journal, graph), 'implement', 'details');
    expect(comment).toMatch(
      /<details><summary>Output of <code>command node sum.test.js<\/code>, implement attempt 2 \(whole output: \.interlock\/runs\/details\.logs\/implement-2\.check-1\.log\)/,
    );
    expect(comment).toContain('6 !== 5');
  });
});
