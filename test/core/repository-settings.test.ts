// Rule: an effect's failure that only a repository setting fixes escalates its node at once (a retry meets the
// same refusal), naming the setting; a node's command that prints the same words is retried as usual.
import { describe, expect, it } from 'vitest';
import type { Failure } from '../../src/journal/events/fields.js';
import {
  ACTIONS_PULL_REQUEST_SETTING,
  settingFailureMessage,
} from '../../src/protocol/attempt/repository-settings.js';
import { decideResult } from '../../src/protocol/decide.js';
import { graph, graphText, Sim } from './sim.js';

const NODES = `  - id: open-pr
    run: "true"
`;

function failWith(failures: Failure[]): Sim {
  const sim = new Sim(graph(graphText(NODES)));
  sim.dispatch();
  const r = decideResult(sim.run, {
    node: 'open-pr',
    attempt: 1,
    outcome: {
      failures,
      evidence: [],
      outputs: {},
      usage: { wall_ms: 10 },
    },
  });
  if (r.kind !== 'write') throw new Error(r.reason);
  return sim.append(r.events);
}

const refusal = settingFailureMessage(
  403,
  'GitHub Actions is not permitted to create or approve pull requests. - https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
)!;

describe('rule: a failure only a repository setting fixes escalates at once', () => {
  it("GitHub's 403 on a pull request becomes the setting's name and the App-token alternative", () => {
    expect(refusal).toContain(`"${ACTIONS_PULL_REQUEST_SETTING}"`);
    expect(refusal).toContain("GitHub App's installation token");
    // Any other 403 (a rate limit, a missing permission) is not this one.
    expect(settingFailureMessage(403, 'Resource not accessible by integration')).toBeUndefined();
    expect(settingFailureMessage(500, refusal)).toBeUndefined();
  });

  it('the effect that met it escalates after its first attempt, the report naming the setting', () => {
    const sim = failWith([{ check: 'effect pull_request', message: refusal }]);
    expect(sim.cp.escalated_nodes).toEqual(['open-pr']);
    const escalated = sim.journal.events.at(-1)!;
    expect(escalated).toMatchObject({
      type: 'NodeEscalated',
      report: { setup: `the repository setting "${ACTIONS_PULL_REQUEST_SETTING}" is off` },
    });
    expect(JSON.stringify(escalated)).toContain('Then approve a rerun of \\"open-pr\\"');
  });

  it("a node's own command that prints the same words is retried as usual", () => {
    const sim = failWith([{ check: 'exit', message: refusal }]);
    expect(sim.cp.escalated_nodes).toEqual([]);
    expect(sim.cp.ready_nodes).toEqual(['open-pr']);
  });
});
