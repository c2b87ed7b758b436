/**
 * A workflow run's artifacts through the REST API: listed (`name` filters by exact name), one read, and its
 * archive, which GitHub answers with a redirect to a short-lived signed URL of its blob store (artifacts.ts); an
 * expired artifact's archive is 410. Only finalized uploads are shown.
 */
import type { ArtifactRecord } from '../artifacts.js';
import type { Urls } from '../context.js';
import { HttpError, notFound } from '../http-error.js';
import type { RepoState } from '../repo-state.js';
import { type RouteDef, route } from '../router.js';
import type { Schema } from '../types.js';

function artifact(repo: RepoState, urls: Urls, a: ArtifactRecord, expired: boolean): Schema<'artifact'> {
  const api = `${urls.api}/repos/${repo.fullName}/actions/artifacts/${a.id}`;
  const run = repo.workflowRuns.get(a.runId);
  return {
    id: a.id,
    node_id: `MDg6QXJ0aWZhY3Q${a.id}`,
    name: a.name,
    size_in_bytes: a.body?.length ?? 0,
    url: api,
    archive_download_url: `${api}/zip`,
    expired,
    created_at: a.created_at,
    expires_at: a.expires_at,
    updated_at: a.created_at,
    digest: a.digest ?? null,
    workflow_run: {
      id: a.runId,
      repository_id: repo.id,
      head_repository_id: repo.id,
      ...(run ? { head_branch: run.head_branch ?? '', head_sha: run.head_sha } : {}),
    },
  };
}

export const artifactRoutes: RouteDef[] = [
  route('get', '/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', (ctx) => {
    const repo = ctx.repo();
    const runId = Number(ctx.params.run_id);
    if (!repo.workflowRuns.has(runId)) throw notFound();
    const name = ctx.query.get('name');
    const all = ctx.state.artifacts
      .ofRun(repo, runId)
      .filter((a) => name === null || a.name === name)
      .reverse();
    const { items, headers } = ctx.page(all);
    return ctx.reply(
      200,
      {
        total_count: all.length,
        artifacts: items.map((a) => artifact(repo, ctx.urls, a, ctx.state.artifacts.expired(a))),
      },
      headers,
    );
  }),

  route('get', '/repos/{owner}/{repo}/actions/artifacts/{artifact_id}', (ctx) => {
    const repo = ctx.repo();
    const a = ctx.state.artifacts.find(repo, Number(ctx.params.artifact_id));
    if (!a) throw notFound();
    return ctx.reply(200, artifact(repo, ctx.urls, a, ctx.state.artifacts.expired(a)));
  }),

  route('get', '/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}', (ctx) => {
    const repo = ctx.repo();
    const a = ctx.state.artifacts.find(repo, Number(ctx.params.artifact_id));
    if (!a || ctx.params.archive_format !== 'zip') throw notFound();
    if (ctx.state.artifacts.expired(a)) throw new HttpError(410, 'Artifact has expired');
    return ctx.reply(302, undefined, { location: ctx.state.artifacts.blobUrl(ctx.urls.api, a, true) });
  }),
];
