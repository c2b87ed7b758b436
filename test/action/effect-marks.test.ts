// An effect's own marks are recognised by a value only the dispatching process can make (issue 34), never by a
// trailer or a marker alone: anyone who can push or run a workflow can write `Interlock-Effect: <run-id>/<node>`
// (run ids are predictable) or post a bot's comment with the marker. Through the bundled action against the local
// GitHub, each forgery is planted before the run's first step; none is taken as interlock's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markHash } from '../../src/protocol/attempt/effect-marks.js';
import { runStep } from '../support/action-process.js';
import type { RepoState } from '../support/github-server.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { type EffectWorld, effectWorlds, graph } from './effect-world.js';
import { eventsOf, FULL, OWNER, REPO, readJournal } from './world.js';

let server: GitHubServer;
let repo: RepoState;
let world: (graphText: string) => EffectWorld;
beforeAll(async () => {
  server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
  repo = server.state.repo(FULL);
  world = effectWorlds(server, 2000);
});
afterAll(() => server?.close());

const FORGED_VALUE = 'ab'.repeat(32);
const effectNode = (effect: string) => `  - id: effect
    depends_on: [implement]
    effect:
${effect}`;
const PUSH = effectNode(`      push:
        branch: interlock/issue-\${{ github.event.issue.number }}
        message: fix
`);

/** The failure the effect node's attempt journaled, or its recorded outputs. */
function outcome(w: EffectWorld) {
  const j = readJournal(server, w.runId);
  return {
    failed: eventsOf(j, 'NodeFailed', 'effect')[0]?.failures[0]?.message,
    recorded: eventsOf(j, 'NodeRecorded', 'effect')[0],
    marks: eventsOf(j, 'NodeDispatched', 'effect').map((e) => e.effect_mark),
  };
}

describe('effect marks: a forged trailer or marker is not interlock’s own', () => {
  it.each([
    ['the key alone (as marks were before)', ''],
    ['the key and a made-up value', ` ${FORGED_VALUE}`],
  ])(
    'push: a branch tip whose trailer carries %s is refused, not taken as the effect done',
    async (_n, tail) => {
      const w = world(graph(PUSH));
      const branch = `interlock/issue-${w.issue}`;
      const forged = repo.commitFiles(
        branch,
        { 'evil.txt': 'x\n' },
        {
          message: `evil\n\nInterlock-Effect: ${w.runId}/effect${tail}\n`,
        },
      );
      await runStep(w.step());
      const o = outcome(w);
      expect(o.recorded).toBeUndefined();
      expect(o.failed).toMatch(/a commit this run did not make/);
      expect(repo.branchSha(branch)).toBe(forged.sha);
    },
  );

  it('push: the commit it makes carries a value whose hash the dispatch recorded', async () => {
    const w = world(graph(PUSH));
    await runStep(w.step());
    const o = outcome(w);
    const message = repo.git.commit(o.recorded!.outputs.sha!)!.message;
    const m = new RegExp(`^Interlock-Effect: (${w.runId}/effect) ([0-9a-f]{64})$`, 'm').exec(message)!;
    expect(m).not.toBeNull();
    expect(o.marks).toEqual([markHash(m[1]!, m[2]!)]);
  });

  it('comment: a bot’s comment with the marker and a made-up value does not count; interlock posts its own', async () => {
    const w = world(graph(effectNode('      comment:\n        body: done\n')));
    const key = `${w.runId}/effect`;
    repo.addComment(w.issue, `<!-- interlock:effect ${key} ${FORGED_VALUE} -->`, 'github-actions[bot]');
    repo.addComment(w.issue, `<!-- interlock:effect ${key} -->`, 'github-actions[bot]');
    await runStep(w.step());
    const o = outcome(w);
    expect(o.recorded?.evidence[0]?.observed).toMatch(/posted/);
    const ours = repo.commentsOn(w.issue).filter((c) => c.body.startsWith('done'));
    expect(ours).toHaveLength(1);
    expect(String(ours[0]!.id)).toBe(o.recorded!.outputs.comment_id);
  });

  it('release: a release of the tag whose body carries the marker with the key alone is refused, and left as it was', async () => {
    const w = world(
      graph(effectNode('      release:\n        tag: v9.${{ github.event.issue.number }}.0\n')),
    );
    const body = `<!-- interlock:effect ${w.runId}/effect -->`;
    const theirs = repo.addRelease({ tag: `v9.${w.issue}.0`, body });
    await runStep(w.step());
    const o = outcome(w);
    expect(o.recorded).toBeUndefined();
    expect(o.failed).toMatch(/this run did not make it/);
    expect(repo.releases.get(theirs.id)!.body).toBe(body);
  });
});
