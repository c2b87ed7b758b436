/** Branches and commits as the repository API (not the git data API) shows them. */
import { conflict, notFound, unprocessable } from '../http-error.js';
import { branch, commit, shortBranch } from '../render/git.js';
import { type RouteDef, route } from '../router.js';

export const branchRoutes: RouteDef[] = [
  route(
    'get',
    '/repos/{owner}/{repo}/branches',
    (ctx) => {
      const repo = ctx.repo();
      const { items, headers } = ctx.page(repo.branches());
      return ctx.reply(
        200,
        items.map((item) => shortBranch(repo, ctx.urls, item.name, item.sha)),
        headers,
      );
    },
    { byName: true },
  ),

  route(
    'get',
    '/repos/{owner}/{repo}/branches/{branch}',
    (ctx) => {
      const repo = ctx.repo();
      const sha = repo.branchSha(ctx.params.branch);
      const head = sha ? repo.git.commit(sha) : undefined;
      if (!head) throw notFound('Branch not found');
      return ctx.reply(200, branch(repo, ctx.urls, ctx.params.branch, head));
    },
    { greedy: 'branch', byName: true },
  ),

  route(
    'get',
    '/repos/{owner}/{repo}/commits/{ref}',
    (ctx) => {
      const repo = ctx.repo();
      if (repo.isEmpty()) throw conflict('Git Repository is empty.');
      const sha = repo.resolveCommit(ctx.params.ref);
      const found = sha ? repo.git.commit(sha) : undefined;
      if (!found) throw unprocessable(`No commit found for SHA: ${ctx.params.ref}`);
      return ctx.reply(200, commit(repo, ctx.urls, found));
    },
    { byName: true },
  ),
];
