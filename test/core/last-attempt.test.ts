// "Escalate after the last allowed attempt" is one rule (issue 47): a failed result (`decideResult`), a failed
// pre-check (`decideNext`'s execute_conditions) and the fold (`NodeFailed`) all ask the same question, so they
// escalate at the same attempt, for every number of approaches a node may have. A copy that drifts (one more or
// one fewer attempt in any of the three) makes the counts differ, or the fold refuses the journal.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Graph } from '../../src/graph/model.js';
import { graph, graphText, Sim } from './sim.js';

/** A node with `retries` extra approaches, failing its command or, with `precheck`, its pre-check. */
function failing(retries: number, precheck: boolean): Graph {
  // Attempt 3 must differ from the node's own approach: each retry runs the script with its own flag.
  const entries = Array.from(
    { length: retries },
    (_, i) => `      - description: try ${i + 2}\n        run: ./deploy.sh --try ${i + 2}\n`,
  );
  const retry = retries ? `    retry:\n${entries.join('')}` : '';
  const condition = precheck ? '    execute_conditions: ["fromJSON(inputs.flags).deploy"]\n' : '';
  return graph(graphText(`  - id: deploy\n    run: ./deploy.sh\n${condition}${retry}`));
}

/** Fails `deploy` until it escalates: the attempt that escalated, and the fold's state before each failure. */
function attemptsUntilEscalated(
  g: Graph,
  precheck: boolean,
): { escalatedAt: number; pendingBefore: number[] } {
  const sim = new Sim(g, { flags: 'not json' });
  const pendingBefore: number[] = [];
  for (let attempt = 1; attempt <= 10; attempt++) {
    expect(sim.state.nodes.get('deploy')?.state, `before attempt ${attempt}`).toBe('pending');
    pendingBefore.push(attempt);
    if (precheck) {
      expect(sim.step()).toMatchObject({ kind: 'precheck-failed', attempt });
    } else {
      sim.dispatch('deploy');
      sim.fail('deploy');
    }
    const wrote = sim.journal.events.filter((e) => e.type === 'NodeEscalated');
    const folded = sim.state.nodes.get('deploy')?.state;
    // The decision and the fold agree at every attempt: an escalation written is an escalated node, and none
    // written is a node that may go on.
    expect(folded, `attempt ${attempt}: escalations written ${wrote.length}`).toBe(
      wrote.length ? 'escalated' : 'pending',
    );
    if (wrote.length) return { escalatedAt: attempt, pendingBefore };
  }
  throw new Error('deploy never escalated');
}

describe('the last allowed attempt: a failed result, a failed pre-check and the fold escalate at the same one', () => {
  for (const retries of [0, 1, 2]) {
    it(`with ${retries} retry approaches`, () => {
      const allowed = failing(retries, false).nodes[0]!.approaches.length;
      const byResult = attemptsUntilEscalated(failing(retries, false), false);
      const byPrecheck = attemptsUntilEscalated(failing(retries, true), true);
      expect(byResult.escalatedAt).toBe(allowed);
      expect(byPrecheck.escalatedAt).toBe(allowed);
    });
  }
});

const ROOT = join(import.meta.dirname, '../..');
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

describe('the last allowed attempt is written once', () => {
  it("only src/journal/state.ts compares a node's failures with the failures it may have", () => {
    const comparison = /failures\s*(?:\+\s*\d+\s*)?[<>]=?\s*[\w?.]*allowedFailures|allowedFailures\s*[<>]=?/;
    const homes = sources(join(ROOT, 'src'))
      .filter((f) => comparison.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f));
    expect(homes).toEqual(['src/journal/state.ts']);
  });
});
