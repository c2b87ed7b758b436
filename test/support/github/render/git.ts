/** Git data and file contents as GitHub shows them. */
import type { Urls } from '../context.js';
import type { GitCommit, GitPerson, GitTag, GitTree, PathEntry } from '../git-objects.js';
import type { RepoState } from '../repo-state.js';
import type { Schema } from '../types.js';

/** Files above this size come back from the contents API without `content` (`encoding: "none"`). */
export const CONTENT_INLINE_LIMIT = 1024 * 1024;

const UNSIGNED = { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null };

/** Base64 wrapped at 60 characters with a newline after each line, as GitHub (Ruby's encode64) sends it. */
export function wrappedBase64(content: Buffer): string {
  const flat = content.toString('base64');
  let out = '';
  for (let index = 0; index < flat.length; index += 60) out += `${flat.slice(index, index + 60)}\n`;
  return out;
}

const apiBase = (repo: RepoState, urls: Urls): string => `${urls.api}/repos/${repo.fullName}`;

const encodePath = (path: string): string => path.split('/').map(encodeURIComponent).join('/');

export function gitRef(repo: RepoState, urls: Urls, ref: string, sha: string): Schema<'git-ref'> {
  const type = repo.git.get(sha)?.type ?? 'commit';
  const kind = type === 'tag' ? 'tags' : `${type}s`;
  return {
    ref,
    node_id: `REF_${Buffer.from(`${repo.id}:${ref}`).toString('base64url')}`,
    url: `${apiBase(repo, urls)}/git/${ref}`,
    object: { type, sha, url: `${apiBase(repo, urls)}/git/${kind}/${sha}` },
  };
}

export function gitCommit(repo: RepoState, urls: Urls, commit: GitCommit): Schema<'git-commit'> {
  return {
    sha: commit.sha,
    node_id: `C_${Buffer.from(commit.sha, 'hex').toString('base64url')}`,
    url: `${apiBase(repo, urls)}/git/commits/${commit.sha}`,
    html_url: `${urls.web}/${repo.fullName}/commit/${commit.sha}`,
    author: person(commit.author),
    committer: person(commit.committer),
    message: commit.message,
    tree: { sha: commit.tree, url: `${apiBase(repo, urls)}/git/trees/${commit.tree}` },
    parents: commit.parents.map((sha) => ({
      sha,
      url: `${apiBase(repo, urls)}/git/commits/${sha}`,
      html_url: `${urls.web}/${repo.fullName}/commit/${sha}`,
    })),
    verification: UNSIGNED,
  };
}

const person = (who: GitPerson): { name: string; email: string; date: string } => ({
  name: who.name,
  email: who.email,
  date: who.date,
});

export function gitTree(repo: RepoState, urls: Urls, tree: GitTree, recursive: boolean): Schema<'git-tree'> {
  const entries = repo.git.walk(tree.sha, recursive);
  const truncated = recursive && entries.length > repo.treeEntryLimit;
  return {
    sha: tree.sha,
    url: `${apiBase(repo, urls)}/git/trees/${tree.sha}`,
    truncated,
    tree: (truncated ? entries.slice(0, repo.treeEntryLimit) : entries).map((entry) => ({
      path: entry.path,
      mode: entry.mode,
      type: entry.type,
      sha: entry.sha,
      ...(entry.type === 'blob' ? { size: repo.git.blob(entry.sha)?.content.length ?? 0 } : {}),
      url: `${apiBase(repo, urls)}/git/${entry.type === 'tree' ? 'trees' : 'blobs'}/${entry.sha}`,
    })),
  };
}

export function blob(repo: RepoState, urls: Urls, sha: string, content: Buffer): Schema<'blob'> {
  return {
    sha,
    node_id: `B_${Buffer.from(sha, 'hex').toString('base64url')}`,
    size: content.length,
    url: `${apiBase(repo, urls)}/git/blobs/${sha}`,
    content: wrappedBase64(content),
    encoding: 'base64',
  };
}

export function gitTag(repo: RepoState, urls: Urls, tag: GitTag): Schema<'git-tag'> {
  return {
    node_id: `TAG_${Buffer.from(tag.sha, 'hex').toString('base64url')}`,
    tag: tag.tag,
    sha: tag.sha,
    url: `${apiBase(repo, urls)}/git/tags/${tag.sha}`,
    message: tag.message,
    tagger: person(tag.tagger),
    object: {
      sha: tag.object.sha,
      type: tag.object.type,
      url: `${apiBase(repo, urls)}/git/${tag.object.type}s/${tag.object.sha}`,
    },
    verification: UNSIGNED,
  };
}

function contentLinks(repo: RepoState, urls: Urls, entry: PathEntry, ref: string) {
  const self = `${apiBase(repo, urls)}/contents/${encodePath(entry.path)}?ref=${encodeURIComponent(ref)}`;
  const kind = entry.type === 'tree' ? 'tree' : 'blob';
  const git = `${apiBase(repo, urls)}/git/${entry.type === 'tree' ? 'trees' : 'blobs'}/${entry.sha}`;
  const html = `${urls.web}/${repo.fullName}/${kind}/${encodeURIComponent(ref)}/${encodePath(entry.path)}`;
  return { self, git, html };
}

/** A file with its content: base64 up to 1 MB, empty with `encoding: "none"` above. */
export function contentFile(
  repo: RepoState,
  urls: Urls,
  entry: PathEntry,
  ref: string,
): Schema<'content-file'> {
  const content = repo.git.blob(entry.sha)?.content ?? Buffer.alloc(0);
  const links = contentLinks(repo, urls, entry, ref);
  const inline = content.length <= CONTENT_INLINE_LIMIT;
  return {
    type: 'file',
    encoding: inline ? 'base64' : 'none',
    size: content.length,
    name: entry.path.split('/').pop() ?? entry.path,
    path: entry.path,
    content: inline ? wrappedBase64(content) : '',
    sha: entry.sha,
    url: links.self,
    git_url: links.git,
    html_url: links.html,
    download_url: `${urls.web}/${repo.fullName}/raw/${encodeURIComponent(ref)}/${encodePath(entry.path)}`,
    _links: links,
  };
}

/** One item of a directory listing. */
export function contentEntry(
  repo: RepoState,
  urls: Urls,
  entry: PathEntry,
  ref: string,
): Schema<'content-directory'>[number] {
  const links = contentLinks(repo, urls, entry, ref);
  const isFile = entry.type === 'blob';
  return {
    type: entry.type === 'tree' ? 'dir' : entry.mode === '120000' ? 'symlink' : 'file',
    size: isFile ? (repo.git.blob(entry.sha)?.content.length ?? 0) : 0,
    name: entry.path.split('/').pop() ?? entry.path,
    path: entry.path,
    sha: entry.sha,
    url: links.self,
    git_url: links.git,
    html_url: links.html,
    download_url: isFile
      ? `${urls.web}/${repo.fullName}/raw/${encodeURIComponent(ref)}/${encodePath(entry.path)}`
      : null,
    _links: links,
  };
}

export function fileCommit(
  repo: RepoState,
  urls: Urls,
  entry: PathEntry | null,
  branch: string,
  commit: GitCommit,
): Schema<'file-commit'> {
  const file = entry ? contentEntry(repo, urls, entry, branch) : null;
  return {
    content: file
      ? {
          name: file.name,
          path: file.path,
          sha: file.sha,
          size: file.size,
          url: file.url,
          html_url: file.html_url ?? '',
          git_url: file.git_url ?? '',
          download_url: file.download_url ?? '',
          type: 'file',
          _links: { self: file._links.self, git: file._links.git ?? '', html: file._links.html ?? '' },
        }
      : null,
    commit: gitCommit(repo, urls, commit),
  };
}

/** A commit as `GET /repos/{owner}/{repo}/commits/{ref}` shows it. */
export function commit(repo: RepoState, urls: Urls, commit: GitCommit): Schema<'commit'> {
  const git = gitCommit(repo, urls, commit);
  return {
    url: `${apiBase(repo, urls)}/commits/${commit.sha}`,
    sha: commit.sha,
    node_id: git.node_id,
    html_url: git.html_url,
    comments_url: `${apiBase(repo, urls)}/commits/${commit.sha}/comments`,
    commit: {
      url: git.url,
      author: git.author,
      committer: git.committer,
      message: git.message,
      comment_count: 0,
      tree: git.tree,
      verification: UNSIGNED,
    },
    author: null,
    committer: null,
    parents: git.parents.map((parent) => ({
      sha: parent.sha,
      url: `${apiBase(repo, urls)}/commits/${parent.sha}`,
      html_url: parent.html_url,
    })),
    files: [],
    stats: { additions: 0, deletions: 0, total: 0 },
  };
}

export function branch(
  repo: RepoState,
  urls: Urls,
  name: string,
  head: GitCommit,
): Schema<'branch-with-protection'> {
  const url = `${apiBase(repo, urls)}/branches/${encodeURIComponent(name)}`;
  return {
    name,
    commit: commit(repo, urls, head),
    _links: { self: url, html: `${urls.web}/${repo.fullName}/tree/${encodeURIComponent(name)}` },
    protected: false,
    protection: {
      enabled: false,
      required_status_checks: { enforcement_level: 'off', contexts: [], checks: [] },
    },
    protection_url: `${url}/protection`,
  };
}

export function shortBranch(repo: RepoState, urls: Urls, name: string, sha: string): Schema<'short-branch'> {
  return { name, commit: { sha, url: `${apiBase(repo, urls)}/commits/${sha}` }, protected: false };
}

export function tag(repo: RepoState, urls: Urls, name: string, sha: string): Schema<'tag'> {
  return {
    name,
    commit: { sha, url: `${apiBase(repo, urls)}/commits/${sha}` },
    zipball_url: `${apiBase(repo, urls)}/zipball/refs/tags/${encodeURIComponent(name)}`,
    tarball_url: `${apiBase(repo, urls)}/tarball/refs/tags/${encodeURIComponent(name)}`,
    node_id: `REF_${Buffer.from(`${repo.id}:refs/tags/${name}`).toString('base64url')}`,
  };
}
