/**
 * What a person's own token (a GitHub App user access token from the web flow) reads: who they are, the App's
 * installations they can reach, and the repositories of one installation they can see, with their permissions.
 */
import { HttpError, notFound } from '../http-error.js';
import { installation } from '../render/apps.js';
import { repository } from '../render/repos.js';
import { simpleUser } from '../render/users.js';
import type { RepoState } from '../repo-state.js';
import { type RouteDef, route } from '../router.js';
import type { GitHubState } from '../state.js';

/** The repositories a person can see: public ones and those they hold a role on. */
function visible(state: GitHubState, login: string): RepoState[] {
  return [...state.repos.values()].filter((r) => !r.isPrivate || r.roleOf(login) !== undefined);
}

const account = (state: GitHubState): string => [...state.repos.values()][0]?.owner.login ?? state.app.owner;

/** A user token is one the server knows as a person's (not an installation's, not the Actions token). */
function person(state: GitHubState, token: string): string {
  const login = state.tokens.get(token);
  if (login === undefined || state.installationTokens.has(token))
    throw new HttpError(
      403,
      'You must authenticate with an access token authorized to a GitHub App in order to list installations',
    );
  return login;
}

export const userRoutes: RouteDef[] = [
  route('get', '/user', (ctx) => {
    const user = ctx.state.user(ctx.actor.login);
    return ctx.reply(200, {
      ...simpleUser(user, ctx.urls),
      name: user.name ?? null,
      company: null,
      blog: null,
      location: null,
      email: user.email ?? null,
      hireable: null,
      bio: null,
      public_repos: 0,
      public_gists: 0,
      followers: 0,
      following: 0,
      created_at: '2024-01-01T00:00:00Z',
      updated_at: '2024-01-01T00:00:00Z',
    });
  }),

  route('get', '/user/installations', (ctx) => {
    const login = person(ctx.state, ctx.actor.token);
    const list = visible(ctx.state, login).length
      ? [installation(ctx.state, ctx.urls, account(ctx.state))]
      : [];
    const { items, headers } = ctx.page(list);
    return ctx.reply(200, { total_count: list.length, installations: items }, headers);
  }),

  route('get', '/user/installations/{installation_id}/repositories', (ctx) => {
    const login = person(ctx.state, ctx.actor.token);
    if (Number(ctx.params.installation_id) !== ctx.state.app.installationId) throw notFound();
    const all = visible(ctx.state, login);
    const { items, headers } = ctx.page(all);
    return ctx.reply(
      200,
      {
        total_count: all.length,
        repositories: items.map((r) => {
          const role = r.roleOf(login);
          return {
            ...repository(r, ctx.urls),
            permissions: {
              admin: role === 'admin',
              maintain: role === 'admin' || role === 'maintain',
              push: role === 'admin' || role === 'maintain' || role === 'write',
              triage: role !== undefined && role !== 'read',
              pull: true,
            },
          };
        }),
      },
      headers,
    );
  }),
];
