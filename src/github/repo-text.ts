/** Files read from a repository's default branch through the contents API (the config, a run's graph). */
import type { GitHubClient, RepoRef } from './client.js';
import { statusOf } from './status.js';

/** A text file from the repository's default branch; undefined when there is no file at `path`. */
export async function readDefaultBranchText(
  octokit: GitHubClient,
  repo: RepoRef,
  path: string,
): Promise<string | undefined> {
  try {
    const r = await octokit.rest.repos.getContent({ ...repo, path });
    const file = r.data as { type?: string; content?: string; encoding?: string };
    if (Array.isArray(r.data) || file.type !== 'file') return undefined;
    if (file.encoding === 'base64' && file.content)
      return Buffer.from(file.content, 'base64').toString('utf8');
    return '';
  } catch (e) {
    if (statusOf(e) === 404) return undefined;
    throw e;
  }
}

/** Reads files of the repository's default branch by path (what `configLoader` takes). */
export const defaultBranchReader =
  (octokit: GitHubClient, repo: RepoRef) =>
  (path: string): Promise<string | undefined> =>
    readDefaultBranchText(octokit, repo, path);
