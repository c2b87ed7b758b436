// A repository with GitHub's default settings: "Allow GitHub Actions to create and approve pull requests" is off,
// so GitHub answers the workflow token's pull request with 403. Through the bundled action, the pull_request
// effect turns that answer into the setting's name, in the attempt's failure and the attention comment, and
// escalates at once: a retry would meet the same refusal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS_PULL_REQUEST_SETTING } from '../../src/protocol/attempt/repository-settings.js';
import { runStep } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { effectWorlds, graph } from './effect-world.js';
import { eventsOf, FULL, OWNER, REPO, readJournal } from './world.js';

let server: GitHubServer;
beforeAll(async () => {
  server = await startGitHubServer({
    repos: [{ owner: OWNER, name: REPO, actionsCanCreatePullRequests: false }],
  });
});
afterAll(() => server?.close());

const PULL = `  - id: pull-request
    depends_on: [implement]
    effect:
      pull_request:
        branch: interlock/issue-\${{ github.event.issue.number }}
        base: base-\${{ github.event.issue.number }}
        title: "Fix #\${{ github.event.issue.number }}"
`;

describe('effect: pull_request on a repository that does not allow Actions to open pull requests', () => {
  it("names GitHub's setting in the failure and the attention comment, and escalates after one attempt", async () => {
    const w = effectWorlds(server)(graph(PULL));
    const step = await runStep(w.step());
    const journal = readJournal(server, w.runId);
    const failed = eventsOf(journal, 'NodeFailed', 'pull-request');
    // One attempt: no retry spent on a setting.
    expect(failed).toHaveLength(1);
    const message = failed[0]!.failures[0]!.message;
    expect(message).toContain(
      'GitHub answered 403 "GitHub Actions is not permitted to create or approve pull requests"',
    );
    expect(message).toContain(`"${ACTIONS_PULL_REQUEST_SETTING}"`);
    expect(message).toContain("GitHub App's installation token");
    const escalated = eventsOf(journal, 'NodeEscalated', 'pull-request');
    expect(escalated).toHaveLength(1);
    expect(escalated[0]!.report.needed).toContain(ACTIONS_PULL_REQUEST_SETTING);
    const attention = server.state
      .repo(FULL)
      .commentsOn(w.issue)
      .find((c) => c.body.includes('interlock:attention'));
    expect(attention?.body, step.log.slice(-1500)).toContain(ACTIONS_PULL_REQUEST_SETTING);
    expect(attention!.body).toContain('/approve-rerun pull-request');
    expect([...server.state.repo(FULL).issues.values()].filter((i) => i.pull)).toHaveLength(0);
  });
});
