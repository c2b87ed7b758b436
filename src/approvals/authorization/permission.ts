// Gathering what authorization decides on: the person's repository permission and, when needed, team membership.
import type { Approvals } from '../../config/schema.js';
import { statusOf } from '../../github/status.js';
import type { HandlerDeps } from '../deps.js';
import { type AuthFacts, type Need, permissionOf, teamsToAsk } from './authorize.js';

/** How a level counts a person's permission. */
interface Counting {
  /**
   * `false` for a graph's or node's level that names only approvers: no permission satisfies it, so the teams
   * are asked about whatever the person's permission (an admin in the listed team approves). Default `true`.
   */
  permissionSatisfies?: boolean;
}

/**
 * Gathers what `authorize` decides on: the person's permission (collaborator permission API) and, only when
 * that does not decide it, their membership of the teams listed under `approvals.approvers`.
 */
export async function gatherAuthFacts(
  deps: Pick<HandlerDeps, 'octokit' | 'repo'>,
  approvals: Approvals,
  need: Need,
  login: string,
  counting: Counting = {},
): Promise<AuthFacts> {
  let answer: { permission?: string; role_name?: string } | null = null;
  try {
    const r = await deps.octokit.rest.repos.getCollaboratorPermissionLevel({ ...deps.repo, username: login });
    answer = r.data;
  } catch (e) {
    if (statusOf(e) !== 404) throw e;
  }
  const permission = permissionOf(answer);
  const teams: AuthFacts['teams'] = {};
  const counted = counting.permissionSatisfies === false ? 'none' : permission;
  for (const team of teamsToAsk(approvals, need, login, counted)) {
    const [org, slug] = team.split('/') as [string, string];
    try {
      const r = await deps.octokit.rest.teams.getMembershipForUserInOrg({
        org,
        team_slug: slug,
        username: login,
      });
      teams[team.toLowerCase()] = r.data.state === 'active' ? 'active' : 'pending';
    } catch (e) {
      const s = statusOf(e);
      // 404: not a member (or no such team); 403/401: the token may not read memberships.
      teams[team.toLowerCase()] = s === 404 ? 'none' : s === 403 || s === 401 ? 'unknown' : 'none';
      if (s !== 404 && s !== 403 && s !== 401) throw e;
    }
    if (teams[team.toLowerCase()] === 'active') break;
  }
  return { login, permission, teams };
}
