/** Pull requests: get, list (with GitHub's `head` filter quirk), create, update. */
import { HttpError, invalidRequest, notFound, validationFailed } from '../http-error.js';
import { commit } from '../render/git.js';
import { pullRequest, pullRequestSimple } from '../render/pulls.js';
import { type RouteDef, route } from '../router.js';
import { ACTIONS_APP } from '../state.js';

export const pullRoutes: RouteDef[] = [
  route('get', '/repos/{owner}/{repo}/pulls', (ctx) => {
    const repo = ctx.repo();
    const state = ctx.query.get('state') ?? 'open';
    const base = ctx.query.get('base');
    // GitHub filters by head only in the form `owner:branch`; a bare branch name is silently ignored.
    const head = ctx.query.get('head');
    const [headOwner, headRef] = head?.includes(':') ? head.split(':', 2) : [undefined, undefined];
    const ascending = ctx.query.get('direction') === 'asc';
    const found = [...repo.issues.values()]
      .filter((record) => record.pull !== undefined)
      .filter((record) => state === 'all' || record.state === state)
      .filter((record) => base === null || record.pull!.base.ref === base)
      .filter(
        (record) =>
          headOwner === undefined ||
          (record.pull!.head.ref === headRef &&
            record.pull!.head.repo.split('/')[0]?.toLowerCase() === headOwner.toLowerCase()),
      )
      .sort((a, b) => (ascending ? a.number - b.number : b.number - a.number));
    // `sort=updated` orders by the last update (GitHub's default order is by creation, as the number is).
    if (ctx.query.get('sort') === 'updated')
      found.sort((a, b) => (ascending ? 1 : -1) * a.updated_at.localeCompare(b.updated_at));
    const { items, headers } = ctx.page(found);
    return ctx.reply(
      200,
      items.map((record) => pullRequestSimple(repo, ctx.urls, record)),
      headers,
    );
  }),

  route('get', '/repos/{owner}/{repo}/pulls/{pull_number}', (ctx) => {
    const repo = ctx.repo();
    const record = repo.issue(Number(ctx.params.pull_number));
    if (!record?.pull) throw notFound();
    return ctx.reply(200, pullRequest(repo, ctx.urls, record));
  }),

  // Update a pull request: its title, body and state (what interlock's pull_request effect changes).
  route('patch', '/repos/{owner}/{repo}/pulls/{pull_number}', (ctx) => {
    const repo = ctx.repo();
    const record = repo.issue(Number(ctx.params.pull_number));
    if (!record?.pull) throw notFound();
    const { title, body, state } = ctx.body;
    if (title !== undefined && (typeof title !== 'string' || title === ''))
      throw validationFailed({ resource: 'PullRequest', code: 'missing_field', field: 'title' });
    if (body !== undefined && body !== null && typeof body !== 'string')
      throw invalidRequest('"body" must be a string.');
    if (state !== undefined && state !== 'open' && state !== 'closed')
      throw validationFailed({ resource: 'PullRequest', code: 'invalid', field: 'state' });
    if (typeof title === 'string') record.title = title;
    if (body !== undefined) record.body = body as string | null;
    if (state === 'open' || state === 'closed') record.state = state;
    record.updated_at = repo.env.now();
    return ctx.reply(200, pullRequest(repo, ctx.urls, record));
  }),

  // The pull request's commits, oldest first, as GitHub lists them: from the head back (first parents) to the base.
  route('get', '/repos/{owner}/{repo}/pulls/{pull_number}/commits', (ctx) => {
    const repo = ctx.repo();
    const record = repo.issue(Number(ctx.params.pull_number));
    if (!record?.pull) throw notFound();
    const base = repo.branchSha(record.pull.base.ref) ?? record.pull.base.sha;
    const found = [];
    for (let sha: string | undefined = repo.pullHeadSha(record); sha && found.length < 250; ) {
      if (base && repo.git.isAncestor(sha, base)) break;
      const c = repo.git.commit(sha);
      if (!c) break;
      found.unshift(c);
      sha = c.parents[0];
    }
    const { items, headers } = ctx.page(found);
    return ctx.reply(
      200,
      items.map((c) => commit(repo, ctx.urls, c)),
      headers,
    );
  }),

  route('post', '/repos/{owner}/{repo}/pulls', (ctx) => {
    const repo = ctx.repo();
    // The Actions token (GITHUB_TOKEN) may open a pull request only where the repository allows it.
    if (ctx.actor.app?.slug === ACTIONS_APP.slug && !repo.actionsCanCreatePullRequests)
      throw new HttpError(403, 'GitHub Actions is not permitted to create or approve pull requests.');
    const { title, head, base, body, draft } = ctx.body;
    if (typeof head !== 'string' || head === '') throw invalidRequest('"head" wasn\'t supplied.');
    if (typeof base !== 'string' || base === '') throw invalidRequest('"base" wasn\'t supplied.');
    if (typeof title !== 'string' || title === '') throw invalidRequest('"title" wasn\'t supplied.');
    const headRef = head.includes(':') ? head.split(':', 2)[1]! : head;
    const headSha = repo.branchSha(headRef);
    const baseSha = repo.branchSha(base);
    if (!headSha) throw validationFailed({ resource: 'PullRequest', code: 'invalid', field: 'head' });
    if (!baseSha) throw validationFailed({ resource: 'PullRequest', code: 'invalid', field: 'base' });
    const open = [...repo.issues.values()].find(
      (record) =>
        record.state === 'open' && record.pull?.head.ref === headRef && record.pull.base.ref === base,
    );
    if (open) {
      throw validationFailed({
        resource: 'PullRequest',
        code: 'custom',
        message: `A pull request already exists for ${repo.owner.login}:${headRef}.`,
      });
    }
    if (headSha === baseSha || repo.git.isAncestor(headSha, baseSha)) {
      throw validationFailed({
        resource: 'PullRequest',
        code: 'custom',
        message: `No commits between ${base} and ${headRef}`,
      });
    }
    const record = repo.addPull({
      title,
      head: headRef,
      base,
      user: ctx.actor.login,
      ...(typeof body === 'string' ? { body } : {}),
      draft: draft === true,
    });
    const shown = pullRequest(repo, ctx.urls, record);
    return ctx.reply(201, shown, { location: shown.url });
  }),
];
