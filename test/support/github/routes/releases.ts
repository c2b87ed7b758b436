/** Tags (the repository listing) and releases. */
import { invalidRequest, notFound, validationFailed } from '../http-error.js';
import type { ReleaseRecord } from '../records.js';
import { tag } from '../render/git.js';
import { release } from '../render/releases.js';
import type { RepoState } from '../repo-state.js';
import { type RouteDef, route } from '../router.js';

/** Published releases only: drafts are visible to people with push access, which no test needs. */
const published = (repo: RepoState): ReleaseRecord[] =>
  [...repo.releases.values()].filter((record) => !record.draft).sort((a, b) => b.id - a.id);

export const releaseRoutes: RouteDef[] = [
  route('get', '/repos/{owner}/{repo}/tags', (ctx) => {
    const repo = ctx.repo();
    const tags = [...repo.refs]
      .filter(([ref]) => ref.startsWith('refs/tags/'))
      .map(([ref, sha]) => ({ name: ref.slice('refs/tags/'.length), sha: repo.peel(sha) ?? sha }))
      .sort((a, b) => (a.name < b.name ? 1 : -1));
    const { items, headers } = ctx.page(tags);
    return ctx.reply(
      200,
      items.map((item) => tag(repo, ctx.urls, item.name, item.sha)),
      headers,
    );
  }),

  route('get', '/repos/{owner}/{repo}/releases', (ctx) => {
    const repo = ctx.repo();
    const { items, headers } = ctx.page([...repo.releases.values()].sort((a, b) => b.id - a.id));
    return ctx.reply(
      200,
      items.map((record) => release(repo, ctx.urls, record)),
      headers,
    );
  }),

  route('get', '/repos/{owner}/{repo}/releases/latest', (ctx) => {
    const repo = ctx.repo();
    const latest = published(repo).find((record) => !record.prerelease);
    if (!latest) throw notFound();
    return ctx.reply(200, release(repo, ctx.urls, latest));
  }),

  route('get', '/repos/{owner}/{repo}/releases/tags/{tag}', (ctx) => {
    const repo = ctx.repo();
    const found = published(repo).find((record) => record.tag_name === ctx.params.tag);
    if (!found) throw notFound();
    return ctx.reply(200, release(repo, ctx.urls, found));
  }),

  route('get', '/repos/{owner}/{repo}/releases/{release_id}', (ctx) => {
    const repo = ctx.repo();
    const found = repo.releases.get(Number(ctx.params.release_id));
    if (!found) throw notFound();
    return ctx.reply(200, release(repo, ctx.urls, found));
  }),

  route('post', '/repos/{owner}/{repo}/releases', (ctx) => {
    const repo = ctx.repo();
    const { tag_name: tagName, target_commitish: target, name, draft, prerelease } = ctx.body;
    // With generate_release_notes GitHub writes the notes, after the body given.
    const generated = `**Full Changelog**: https://github.com/${repo.fullName}/commits/${String(tagName)}`;
    const body =
      ctx.body.generate_release_notes === true
        ? [ctx.body.body, generated].filter((t) => typeof t === 'string' && t).join('\n\n')
        : ctx.body.body;
    if (typeof tagName !== 'string' || tagName === '') throw invalidRequest('"tag_name" wasn\'t supplied.');
    if ([...repo.releases.values()].some((record) => record.tag_name === tagName)) {
      throw validationFailed({ resource: 'Release', code: 'already_exists', field: 'tag_name' });
    }
    if (!repo.refs.has(`refs/tags/${tagName}`) && !repo.resolveCommit(target)) {
      throw validationFailed({ resource: 'Release', code: 'invalid', field: 'target_commitish' });
    }
    const record = repo.addRelease({
      tag: tagName,
      ...(typeof target === 'string' ? { target } : {}),
      ...(typeof name === 'string' ? { name } : {}),
      ...(typeof body === 'string' ? { body } : {}),
      draft: draft === true,
      prerelease: prerelease === true,
      author: ctx.actor.login,
    });
    const shown = release(repo, ctx.urls, record);
    return ctx.reply(201, shown, { location: shown.url });
  }),
];
