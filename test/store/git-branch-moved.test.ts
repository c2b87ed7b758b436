/**
 * Two runs' journals on one branch under the like-GitHub model (runs started on the journal branch of before, which
 * go on there; new runs each have a branch of their own and never meet so): a contents write that another run's write beat
 * to the branch is refused 409 `is at … but expected …`. The git store says the branch moved (not the journal),
 * and the commit sends the same write again rather than count it as a store refusing for nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type GitHubClient } from '../../src/github/client.js';
import { JOURNAL_FORMAT, type Journal } from '../../src/journal/events/events.js';
import { appendEvents } from '../../src/journal/parse.js';
import { GitStore } from '../../src/store/git.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';

const REPO = { owner: 'acme', repo: 'widgets' };
let server: GitHubServer;
let octokit: GitHubClient;
beforeAll(async () => {
  server = await startGitHubServer({
    likeGitHub: { contentsWriteMs: 150, staleProbability: 0 },
    repos: [{ owner: 'acme', name: 'widgets' }],
  });
  octokit = createClient({ token: 't', baseUrl: server.url, retries: 0, writeIntervalMs: 0 });
});
afterAll(async () => server?.close());

const journalOf = (runId: string): Journal =>
  appendEvents(
    {
      format: JOURNAL_FORMAT,
      run_id: runId,
      graph: { name: 'g', hash: 'sha256:0', path: 'g.yml' },
      events: [],
    },
    [
      {
        type: 'RunStarted',
        graph: { name: 'g', hash: 'sha256:0', path: 'g.yml' },
        intent: 'cli',
        subject: 'local',
        runner: { kind: 'local', host: 'h', pid: 1 },
      },
    ],
    '2026-01-01T00:00:00.000Z',
  );

describe('a write beaten to the branch by another run’s', () => {
  it('is refused as branchMoved, and goes through when sent again as it was', async () => {
    const one = new GitStore(octokit, REPO, 'run/one', 'interlock-journal', 'legacy');
    const two = new GitStore(octokit, REPO, 'run/two', 'interlock-journal', 'legacy');
    // The branch exists first, so both writes below are plain creates of their own files.
    expect(
      (
        await new GitStore(octokit, REPO, 'run/zero', 'interlock-journal', 'legacy').write(
          journalOf('run/zero'),
          null,
          'm',
        )
      ).ok,
    ).toBe(true);
    const [a, b] = await Promise.all([
      one.write(journalOf('run/one'), null, 'one'),
      new Promise((res) => setTimeout(res, 30)).then(() => two.write(journalOf('run/two'), null, 'two')),
    ]);
    expect(a.ok).toBe(true);
    // The refusal names the branch's head, where the journal can be read exactly rather than by branch name.
    expect(b).toMatchObject({
      ok: false,
      branchMoved: true,
      head: server.state.repo('acme/widgets').branchSha('interlock-journal'),
    });
    expect((await two.write(journalOf('run/two'), null, 'two')).ok).toBe(true);
    expect(server.model.stats.racedWrites).toBe(1);
  });
});
