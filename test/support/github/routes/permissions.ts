/** Who may do what: collaborator permission levels and organisation team memberships. */
import { notFound } from '../http-error.js';
import type { Role } from '../records.js';
import { simpleUser } from '../render/users.js';
import { type RouteDef, route } from '../router.js';

/** The legacy `permission` GitHub reports next to `role_name`: maintain reads as write, triage as read. */
const LEGACY: Record<Role, 'admin' | 'write' | 'read'> = {
  admin: 'admin',
  maintain: 'write',
  write: 'write',
  triage: 'read',
  read: 'read',
};

export const permissionRoutes: RouteDef[] = [
  route('get', '/repos/{owner}/{repo}/collaborators/{username}/permission', (ctx) => {
    const repo = ctx.repo();
    // Every login names a user here, as on GitHub where webhook payloads name real accounts.
    const user = ctx.state.user(ctx.params.username);
    const role = repo.roleOf(user.login);
    // Someone who is not a collaborator can still read a public repository.
    const permission = role ? LEGACY[role] : repo.isPrivate ? 'none' : 'read';
    const roleName = role ?? permission;
    const flags = {
      admin: permission === 'admin',
      maintain: role === 'admin' || role === 'maintain',
      push: permission === 'admin' || permission === 'write',
      triage: role !== undefined && role !== 'read',
      pull: permission !== 'none',
    };
    return ctx.reply(200, {
      permission,
      role_name: roleName,
      user: { ...simpleUser(user, ctx.urls), permissions: flags, role_name: roleName },
    });
  }),

  route('get', '/repos/{owner}/{repo}/collaborators/{username}', (ctx) => {
    const repo = ctx.repo();
    if (!repo.roleOf(ctx.params.username)) throw notFound();
    return { status: 204 };
  }),

  route('get', '/orgs/{org}/teams/{team_slug}/memberships/{username}', (ctx) => {
    const team = ctx.state.team(ctx.params.org, ctx.params.team_slug);
    const member = team?.members.get(ctx.params.username.toLowerCase());
    if (!team || !member) throw notFound();
    return ctx.reply(200, {
      url: `${ctx.urls.api}/teams/${team.id}/memberships/${encodeURIComponent(member.login)}`,
      role: member.role,
      state: member.state,
    });
  }),
];
