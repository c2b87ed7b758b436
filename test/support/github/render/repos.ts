/** Repositories as GitHub shows them: `repository`, `minimal-repository`, `full-repository`. */
import type { Urls } from '../context.js';
import type { RepoState } from '../repo-state.js';
import type { Schema } from '../types.js';
import { simpleUser } from './users.js';

/** The fields `minimal-repository` requires, shared by every repository shape. */
function core(repo: RepoState, urls: Urls) {
  const api = `${urls.api}/repos/${repo.fullName}`;
  return {
    id: repo.id,
    node_id: repo.nodeId,
    name: repo.name,
    full_name: repo.fullName,
    owner: simpleUser(repo.owner, urls),
    private: repo.isPrivate,
    html_url: `${urls.web}/${repo.fullName}`,
    description: null,
    fork: false,
    url: api,
    archive_url: `${api}/{archive_format}{/ref}`,
    assignees_url: `${api}/assignees{/user}`,
    blobs_url: `${api}/git/blobs{/sha}`,
    branches_url: `${api}/branches{/branch}`,
    collaborators_url: `${api}/collaborators{/collaborator}`,
    comments_url: `${api}/comments{/number}`,
    commits_url: `${api}/commits{/sha}`,
    compare_url: `${api}/compare/{base}...{head}`,
    contents_url: `${api}/contents/{+path}`,
    contributors_url: `${api}/contributors`,
    deployments_url: `${api}/deployments`,
    downloads_url: `${api}/downloads`,
    events_url: `${api}/events`,
    forks_url: `${api}/forks`,
    git_commits_url: `${api}/git/commits{/sha}`,
    git_refs_url: `${api}/git/refs{/sha}`,
    git_tags_url: `${api}/git/tags{/sha}`,
    issue_comment_url: `${api}/issues/comments{/number}`,
    issue_events_url: `${api}/issues/events{/number}`,
    issues_url: `${api}/issues{/number}`,
    keys_url: `${api}/keys{/key_id}`,
    labels_url: `${api}/labels{/name}`,
    languages_url: `${api}/languages`,
    merges_url: `${api}/merges`,
    milestones_url: `${api}/milestones{/number}`,
    notifications_url: `${api}/notifications{?since,all,participating}`,
    pulls_url: `${api}/pulls{/number}`,
    releases_url: `${api}/releases{/id}`,
    stargazers_url: `${api}/stargazers`,
    statuses_url: `${api}/statuses/{sha}`,
    subscribers_url: `${api}/subscribers`,
    subscription_url: `${api}/subscription`,
    tags_url: `${api}/tags`,
    teams_url: `${api}/teams`,
    trees_url: `${api}/git/trees{/sha}`,
    hooks_url: `${api}/hooks`,
  };
}

function details(repo: RepoState, urls: Urls) {
  const openIssues = [...repo.issues.values()].filter((issue) => issue.state === 'open').length;
  return {
    git_url: `git://${new URL(urls.web).host}/${repo.fullName}.git`,
    ssh_url: `git@${new URL(urls.web).host}:${repo.fullName}.git`,
    clone_url: `${urls.web}/${repo.fullName}.git`,
    svn_url: `${urls.web}/${repo.fullName}`,
    mirror_url: null,
    homepage: null,
    language: null,
    forks_count: 0,
    forks: 0,
    stargazers_count: 0,
    watchers_count: 0,
    watchers: 0,
    size: repo.git.size,
    default_branch: repo.defaultBranch,
    open_issues_count: openIssues,
    open_issues: openIssues,
    topics: [],
    has_issues: true,
    has_projects: true,
    has_wiki: true,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    visibility: repo.isPrivate ? 'private' : 'public',
    pushed_at: repo.createdAt,
    created_at: repo.createdAt,
    updated_at: repo.createdAt,
    license: null,
    allow_forking: true,
    web_commit_signoff_required: false,
  };
}

export function repository(repo: RepoState, urls: Urls): Schema<'repository'> {
  return { ...core(repo, urls), ...details(repo, urls) };
}

export function minimalRepository(repo: RepoState, urls: Urls): Schema<'minimal-repository'> {
  return { ...core(repo, urls), ...details(repo, urls) };
}

export function fullRepository(repo: RepoState, urls: Urls, role?: string): Schema<'full-repository'> {
  return {
    ...core(repo, urls),
    ...details(repo, urls),
    subscribers_count: 0,
    network_count: 0,
    permissions: {
      admin: role === 'admin',
      maintain: role === 'admin' || role === 'maintain',
      push: role === 'admin' || role === 'maintain' || role === 'write',
      triage: role !== undefined && role !== 'read',
      pull: true,
    },
  };
}
