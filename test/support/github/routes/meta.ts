/** The rate limit status and the repository itself. */
import { fullRepository } from '../render/repos.js';
import { type RouteDef, route } from '../router.js';

export const metaRoutes: RouteDef[] = [
  route(
    'get',
    '/rate_limit',
    (ctx) => {
      const core = {
        limit: ctx.rate.limit,
        remaining: ctx.rate.remaining,
        reset: ctx.rate.reset,
        used: ctx.rate.used,
      };
      const search = { limit: 30, remaining: 30, reset: ctx.rate.reset, used: 0 };
      const graphql = { limit: ctx.rate.limit, remaining: ctx.rate.limit, reset: ctx.rate.reset, used: 0 };
      return ctx.reply(200, { resources: { core, search, graphql }, rate: core });
    },
    { counted: false },
  ),

  route('get', '/repos/{owner}/{repo}', (ctx) => {
    const repo = ctx.repo();
    return ctx.reply(200, fullRepository(repo, ctx.urls, repo.roleOf(ctx.actor.login)));
  }),
];
