/**
 * One file out of a workflow run's artifact, through the REST API: the run's artifacts listed by name
 * (`GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts?name=`), then the archive
 * (`GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/zip`, which redirects to a short-lived URL) and the
 * member read out of it, bounded. The token needs read access to the repository's Actions (any signed-in user's
 * token, for a public repository).
 */
import { unzipFile } from '../os/zip.js';
import type { GitHubClient } from './client.js';

/** Where an artifact is: the repository (`owner/name`), the workflow run, its name and, when known, its id. */
interface ArtifactPlace {
  repository: string;
  workflow_run_id: number;
  name: string;
  id?: number;
}

/** The artifact's listing, or why it cannot be downloaded (words). */
async function listed(octokit: GitHubClient, at: ArtifactPlace, maxZipBytes: number) {
  const [owner, repo] = at.repository.split('/') as [string, string];
  const { data } = await octokit.rest.actions.listWorkflowRunArtifacts({
    owner,
    repo,
    run_id: at.workflow_run_id,
    name: at.name,
    per_page: 100,
  });
  const found = data.artifacts.find((a) => a.name === at.name && (at.id === undefined || a.id === at.id));
  const where = `workflow run ${at.workflow_run_id} of ${at.repository}`;
  if (!found)
    return `${where} has no artifact "${at.name}"${at.id !== undefined ? ` with id ${at.id}` : ''} (deleted, or past its retention)`;
  if (found.expired)
    return `the artifact "${at.name}" of ${where} expired on ${found.expires_at ?? 'a past day'} (past its retention)`;
  if (found.size_in_bytes > maxZipBytes)
    return `the artifact "${at.name}" of ${where} is ${found.size_in_bytes} bytes, over the ${maxZipBytes} read`;
  return { owner, repo, id: found.id };
}

/**
 * The bytes of `member` in the artifact at `at`, or why not (words: no such artifact, expired, too big, no such
 * member, an archive that does not read). Errors of the API itself (a 401, a 404 for the repository) are thrown.
 */
export async function artifactFile(
  octokit: GitHubClient,
  at: ArtifactPlace,
  member: string,
  maxBytes: number,
): Promise<Buffer | string> {
  const maxZip = maxBytes + 1_000_000;
  const a = await listed(octokit, at, maxZip);
  if (typeof a === 'string') return a;
  const { data } = await octokit.rest.actions.downloadArtifact({
    owner: a.owner,
    repo: a.repo,
    artifact_id: a.id,
    archive_format: 'zip',
  });
  const zip = Buffer.from(data as ArrayBuffer);
  if (zip.length > maxZip) return `the artifact "${at.name}" is ${zip.length} bytes, over the ${maxZip} read`;
  try {
    return unzipFile(zip, member, maxBytes) ?? `the artifact "${at.name}" holds no ${member}`;
  } catch (e) {
    return `the artifact "${at.name}" does not read: ${(e as Error).message}`;
  }
}
