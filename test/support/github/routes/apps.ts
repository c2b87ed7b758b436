/**
 * What a GitHub App (Probot) calls: its own identity and installation (with a JWT), installation
 * access tokens, and the repositories an installation token reaches.
 */
import { HttpError, notFound } from '../http-error.js';
import { installation, integration } from '../render/apps.js';
import { repository } from '../render/repos.js';
import { type RouteDef, route } from '../router.js';
import type { GitHubState } from '../state.js';

/** The account the app is installed on: the owner of the first repository. */
const account = (state: GitHubState): string => [...state.repos.values()][0]?.owner.login ?? state.app.owner;

export const appRoutes: RouteDef[] = [
  route('get', '/app', (ctx) => ctx.reply(200, integration(ctx.state.app, ctx.state, ctx.urls)), {
    auth: 'jwt',
  }),

  route(
    'get',
    '/app/installations',
    (ctx) => {
      const { items, headers } = ctx.page([installation(ctx.state, ctx.urls, account(ctx.state))]);
      return ctx.reply(200, items, headers);
    },
    { auth: 'jwt' },
  ),

  route(
    'get',
    '/app/installations/{installation_id}',
    (ctx) => {
      if (Number(ctx.params.installation_id) !== ctx.state.app.installationId) throw notFound();
      return ctx.reply(200, installation(ctx.state, ctx.urls, account(ctx.state)));
    },
    { auth: 'jwt' },
  ),

  route(
    'post',
    '/app/installations/{installation_id}/access_tokens',
    (ctx) => {
      if (Number(ctx.params.installation_id) !== ctx.state.app.installationId) throw notFound();
      const { token, expires_at } = ctx.state.issueInstallationToken();
      return ctx.reply(201, {
        token,
        expires_at,
        permissions: installation(ctx.state, ctx.urls, account(ctx.state)).permissions,
        repository_selection: 'all',
      });
    },
    { auth: 'jwt' },
  ),

  route(
    'get',
    '/repos/{owner}/{repo}/installation',
    (ctx) => ctx.reply(200, installation(ctx.state, ctx.urls, ctx.repo().owner.login)),
    { auth: 'jwt' },
  ),

  route('get', '/installation/repositories', (ctx) => {
    if (!ctx.state.installationTokens.has(ctx.actor.token)) {
      throw new HttpError(403, 'This endpoint requires an installation access token.');
    }
    const all = [...ctx.state.repos.values()];
    const { items, headers } = ctx.page(all);
    return ctx.reply(
      200,
      {
        total_count: all.length,
        repository_selection: 'all',
        repositories: items.map((repo) => repository(repo, ctx.urls)),
      },
      headers,
    );
  }),
];
