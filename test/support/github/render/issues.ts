/** Issues, comments, labels and reactions as GitHub shows them. */
import type { Urls } from '../context.js';
import type { CommentRecord, IssueRecord, LabelRecord, ReactionRecord } from '../records.js';
import type { RepoState, StateEnv } from '../repo-state.js';
import type { Schema } from '../types.js';
import { integration } from './apps.js';
import { simpleUser } from './users.js';

const apiBase = (repo: RepoState, urls: Urls): string => `${urls.api}/repos/${repo.fullName}`;

export function label(repo: RepoState, urls: Urls, record: LabelRecord): Schema<'label'> {
  return {
    id: record.id,
    node_id: record.node_id,
    url: `${apiBase(repo, urls)}/labels/${encodeURIComponent(record.name)}`,
    name: record.name,
    description: record.description,
    color: record.color,
    default: record.default,
  };
}

/** The labels on an issue, in the order they were added. */
export function issueLabels(repo: RepoState, urls: Urls, issue: IssueRecord): Schema<'label'>[] {
  return issue.labels.flatMap((name) => {
    const record = repo.label(name);
    return record ? [label(repo, urls, record)] : [];
  });
}

/** OWNER, COLLABORATOR or NONE: how the author relates to the repository. */
export function authorAssociation(repo: RepoState, login: string): Schema<'author-association'> {
  if (repo.owner.login.toLowerCase() === login.toLowerCase()) return 'OWNER';
  return repo.collaborators.has(login.toLowerCase()) ? 'COLLABORATOR' : 'NONE';
}

export function reactionRollup(url: string, reactions: readonly ReactionRecord[]): Schema<'reaction-rollup'> {
  const count = (content: ReactionRecord['content']) => reactions.filter((r) => r.content === content).length;
  return {
    url,
    total_count: reactions.length,
    '+1': count('+1'),
    '-1': count('-1'),
    laugh: count('laugh'),
    confused: count('confused'),
    heart: count('heart'),
    hooray: count('hooray'),
    eyes: count('eyes'),
    rocket: count('rocket'),
  };
}

export function reaction(env: StateEnv, urls: Urls, record: ReactionRecord): Schema<'reaction'> {
  return {
    id: record.id,
    node_id: record.node_id,
    user: simpleUser(env.user(record.user), urls),
    content: record.content,
    created_at: record.created_at,
  };
}

export function issueComment(repo: RepoState, urls: Urls, comment: CommentRecord): Schema<'issue-comment'> {
  const env = repo.env;
  const url = `${apiBase(repo, urls)}/issues/comments/${comment.id}`;
  const issue = repo.issue(comment.issue_number);
  const htmlKind = issue?.pull ? 'pull' : 'issues';
  return {
    id: comment.id,
    node_id: comment.node_id,
    url,
    html_url: `${urls.web}/${repo.fullName}/${htmlKind}/${comment.issue_number}#issuecomment-${comment.id}`,
    body: comment.body,
    user: simpleUser(env.user(comment.user), urls),
    created_at: comment.created_at,
    updated_at: comment.updated_at,
    issue_url: `${apiBase(repo, urls)}/issues/${comment.issue_number}`,
    author_association: authorAssociation(repo, comment.user),
    performed_via_github_app:
      comment.app && comment.app === env.app.slug ? integration(env.app, env, urls) : null,
    reactions: reactionRollup(`${url}/reactions`, comment.reactions),
  };
}

export function issue(repo: RepoState, urls: Urls, record: IssueRecord): Schema<'issue'> {
  const env = repo.env;
  const url = `${apiBase(repo, urls)}/issues/${record.number}`;
  const pullUrl = `${apiBase(repo, urls)}/pulls/${record.number}`;
  const htmlPull = `${urls.web}/${repo.fullName}/pull/${record.number}`;
  return {
    id: record.id,
    node_id: record.node_id,
    url,
    repository_url: apiBase(repo, urls),
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: record.pull ? htmlPull : `${urls.web}/${repo.fullName}/issues/${record.number}`,
    number: record.number,
    state: record.state,
    state_reason: record.state_reason,
    title: record.title,
    body: record.body,
    user: simpleUser(env.user(record.user), urls),
    labels: issueLabels(repo, urls, record),
    assignee: record.assignees[0] ? simpleUser(env.user(record.assignees[0]), urls) : null,
    assignees: record.assignees.map((login) => simpleUser(env.user(login), urls)),
    milestone: null,
    locked: record.locked,
    active_lock_reason: null,
    comments: repo.commentsOn(record.number).length,
    ...(record.pull
      ? {
          pull_request: {
            merged_at: record.pull.merged_at,
            diff_url: `${htmlPull}.diff`,
            html_url: htmlPull,
            patch_url: `${htmlPull}.patch`,
            url: pullUrl,
          },
          draft: record.pull.draft,
        }
      : {}),
    closed_at: record.closed_at,
    created_at: record.created_at,
    updated_at: record.updated_at,
    closed_by: null,
    author_association: authorAssociation(repo, record.user),
    reactions: reactionRollup(`${url}/reactions`, record.reactions),
    timeline_url: `${url}/timeline`,
  };
}
