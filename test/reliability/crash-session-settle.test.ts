// After a person settles an interrupted node of a session, the session's next node resumes the session of the last
// node that recorded one, across jobs, through the Actions cache (docs/agents.md). These scenarios of the crash
// matrix failed every time while the crash driver gave the Action's steps a TMPDIR inside the workspace the node
// users share: interlock rightly refused to stage a session there, and the next job found nothing to resume.
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../crash/harness.js';
import { crashMatrix } from './crash-model.js';
import { runCrashScenarios, type ScenarioResult } from './crash-run.js';

const IDS = [
  'action/git/session/never/session:mid-command/b/settle/pass',
  'action/git/session/never/session:after-handover-write/b/settle/fail-once',
];

describe('a session settled by a person, then resumed in the next job', () => {
  const scenarios = crashMatrix().filter((s) => IDS.includes(s.id));
  let results: ScenarioResult[] = [];
  beforeAll(async () => {
    requireBundle();
    results = await runCrashScenarios(scenarios);
  }, 600_000);

  it('names scenarios the matrix has', () => {
    expect(scenarios.map((s) => s.id).sort()).toEqual([...IDS].sort());
  });

  it.each(IDS.map((id) => [id] as const))('%s', (id) => {
    const r = results.find((x) => x.id === id);
    expect(r, 'the scenario did not run').toBeDefined();
    expect(r!.problems).toEqual([]);
  });
});
