/** Pull requests as GitHub shows them: full, in lists, and in their minimal form. */
import type { Urls } from '../context.js';
import type { IssueRecord } from '../records.js';
import type { RepoState } from '../repo-state.js';
import type { Schema } from '../types.js';
import { authorAssociation, issueLabels } from './issues.js';
import { repository } from './repos.js';
import { simpleUser } from './users.js';

function common(repo: RepoState, urls: Urls, record: IssueRecord) {
  const pull = record.pull!;
  const env = repo.env;
  const api = `${urls.api}/repos/${repo.fullName}`;
  const url = `${api}/pulls/${record.number}`;
  const html = `${urls.web}/${repo.fullName}/pull/${record.number}`;
  const headOwner = pull.head.repo.split('/')[0] ?? repo.owner.login;
  const headSha = repo.pullHeadSha(record);
  const repoShape = repository(repo, urls);
  return {
    url,
    id: record.id,
    node_id: `PR_${Buffer.from(`0:${record.id}`).toString('base64url')}`,
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: `${api}/issues/${record.number}`,
    commits_url: `${url}/commits`,
    review_comments_url: `${url}/comments`,
    review_comment_url: `${api}/pulls/comments{/number}`,
    comments_url: `${api}/issues/${record.number}/comments`,
    statuses_url: `${api}/statuses/${headSha}`,
    number: record.number,
    locked: record.locked,
    title: record.title,
    user: simpleUser(env.user(record.user), urls),
    body: record.body,
    milestone: null,
    active_lock_reason: null,
    created_at: record.created_at,
    updated_at: record.updated_at,
    closed_at: record.closed_at,
    merged_at: pull.merged_at,
    merge_commit_sha: pull.merge_commit_sha,
    assignee: record.assignees[0] ? simpleUser(env.user(record.assignees[0]), urls) : null,
    assignees: record.assignees.map((login) => simpleUser(env.user(login), urls)),
    requested_reviewers: [],
    requested_teams: [],
    head: {
      label: `${headOwner}:${pull.head.ref}`,
      ref: pull.head.ref,
      repo: repoShape,
      sha: headSha,
      user: simpleUser(env.user(headOwner), urls),
    },
    base: {
      label: `${repo.owner.login}:${pull.base.ref}`,
      ref: pull.base.ref,
      repo: repoShape,
      sha: repo.branchSha(pull.base.ref) ?? pull.base.sha,
      user: simpleUser(repo.owner, urls),
    },
    _links: {
      self: { href: url },
      html: { href: html },
      issue: { href: `${api}/issues/${record.number}` },
      comments: { href: `${api}/issues/${record.number}/comments` },
      review_comments: { href: `${url}/comments` },
      review_comment: { href: `${api}/pulls/comments{/number}` },
      commits: { href: `${url}/commits` },
      statuses: { href: `${api}/statuses/${headSha}` },
    },
    author_association: authorAssociation(repo, record.user),
    auto_merge: null,
    draft: pull.draft,
  };
}

export function pullRequest(repo: RepoState, urls: Urls, record: IssueRecord): Schema<'pull-request'> {
  const pull = record.pull!;
  return {
    ...common(repo, urls, record),
    state: record.state,
    labels: issueLabels(repo, urls, record),
    merged: pull.merged_at !== null,
    mergeable: record.state === 'open' ? true : null,
    rebaseable: record.state === 'open' ? true : null,
    mergeable_state: record.state === 'open' ? 'clean' : 'unknown',
    merged_by: pull.merged_by ? simpleUser(repo.env.user(pull.merged_by), urls) : null,
    comments: repo.commentsOn(record.number).length,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: 1,
    additions: 0,
    deletions: 0,
    changed_files: 0,
  };
}

export function pullRequestSimple(
  repo: RepoState,
  urls: Urls,
  record: IssueRecord,
): Schema<'pull-request-simple'> {
  return {
    ...common(repo, urls, record),
    state: record.state,
    labels: issueLabels(repo, urls, record).map((label) => ({
      ...label,
      description: label.description ?? '',
    })),
  };
}

export function pullRequestMinimal(
  repo: RepoState,
  urls: Urls,
  record: IssueRecord,
): Schema<'pull-request-minimal'> {
  const pull = record.pull!;
  const repoRef = { id: repo.id, url: `${urls.api}/repos/${repo.fullName}`, name: repo.name };
  return {
    id: record.id,
    number: record.number,
    url: `${urls.api}/repos/${repo.fullName}/pulls/${record.number}`,
    head: { ref: pull.head.ref, sha: repo.pullHeadSha(record), repo: repoRef },
    base: { ref: pull.base.ref, sha: repo.branchSha(pull.base.ref) ?? pull.base.sha, repo: repoRef },
  };
}

/** Open pull requests whose head is at `sha`, as check runs and workflow runs list them. */
export function pullsAt(repo: RepoState, urls: Urls, sha: string): Schema<'pull-request-minimal'>[] {
  return [...repo.issues.values()]
    .filter((record) => record.pull && record.state === 'open' && repo.pullHeadSha(record) === sha)
    .map((record) => pullRequestMinimal(repo, urls, record));
}
