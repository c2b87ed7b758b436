// Who may give a command: the pure decision on a person's permission, listing and team membership, and the
// first screen of an event (created comments only, never from a bot).
import type { Approvals } from '../../config/schema.js';

/** A repository permission, weakest first; `none` for someone who cannot even read. */
export type Permission = 'none' | 'read' | 'triage' | 'write' | 'maintain' | 'admin';
const RANK: Record<Permission, number> = { none: 0, read: 1, triage: 2, write: 3, maintain: 4, admin: 5 };

interface Account {
  login: string;
  type?: string;
}

/** An account GitHub marks as a bot, or a login such as `dependabot[bot]`. */
export function isBot(a: Account | null | undefined): boolean {
  return !!a && (a.type === 'Bot' || /\[bot\]$/i.test(a.login));
}

type Screen = { ok: true } | { ok: false; why: string };

/** The first gate, before any API call: only created comments (or a button press), never from a bot. */
export function screenEvent(facts: { action: string; sender: Account; author?: Account | null }): Screen {
  if (isBot(facts.sender) || isBot(facts.author))
    return { ok: false, why: `from a bot (${facts.sender.login}): bots never give interlock commands` };
  if (facts.action !== 'created' && facts.action !== 'requested_action')
    return { ok: false, why: `a comment that was ${facts.action}, not created: only new comments are read` };
  return { ok: true };
}

/** The permission the collaborator permission API reports: its role name when it is a built-in role. */
export function permissionOf(answer: { permission?: string; role_name?: string } | null): Permission {
  if (!answer) return 'none';
  const role = answer.role_name as Permission | undefined;
  if (role && role in RANK) return role;
  const legacy = answer.permission as Permission | undefined;
  return legacy && legacy in RANK ? legacy : 'none';
}

function atLeast(have: Permission, need: Permission): boolean {
  return RANK[have] >= RANK[need];
}

/** What the shell learnt about the person: their permission and, for listed teams, their membership. */
export interface AuthFacts {
  login: string;
  permission: Permission;
  /** `org/team` to the membership state; teams not asked about are absent. */
  teams: Record<string, 'active' | 'pending' | 'none' | 'unknown'>;
}

export type Authorization = { ok: true; via: string } | { ok: false; reason: string };

/**
 * What a command needs: a person's command (or starting a run from a comment) needs the configured permission
 * or a listing; status needs read.
 */
export type Need = 'command' | 'read';

const isTeam = (entry: string) => entry.includes('/');

/** The teams whose membership decides the matter (only asked when permission and logins do not). */
export function teamsToAsk(
  approvals: Approvals,
  need: Need,
  login: string,
  permission: Permission,
): string[] {
  if (need === 'read' || atLeast(permission, approvals.permission)) return [];
  if (approvals.approvers.some((a) => !isTeam(a) && a.toLowerCase() === login.toLowerCase())) return [];
  return approvals.approvers.filter(isTeam);
}

/** May this person give this command? Pure: the facts are gathered by the caller. */
export function authorize(approvals: Approvals, need: Need, facts: AuthFacts): Authorization {
  if (need === 'read') {
    return atLeast(facts.permission, 'read')
      ? { ok: true, via: `${facts.permission} permission` }
      : { ok: false, reason: `@${facts.login} cannot read this repository` };
  }
  if (atLeast(facts.permission, approvals.permission))
    return { ok: true, via: `${facts.permission} permission` };
  const listed = approvals.approvers.find((a) => !isTeam(a) && a.toLowerCase() === facts.login.toLowerCase());
  if (listed) return { ok: true, via: 'listed in approvals.approvers' };
  const team = approvals.approvers.find((a) => isTeam(a) && facts.teams[a.toLowerCase()] === 'active');
  if (team) return { ok: true, via: `member of ${team}` };
  const unknown = approvals.approvers.filter((a) => isTeam(a) && facts.teams[a.toLowerCase()] === 'unknown');
  const teams = approvals.approvers.filter(isTeam);
  return {
    ok: false,
    reason:
      `@${facts.login} has ${facts.permission === 'none' ? 'no' : facts.permission} permission; this command needs ${approvals.permission}` +
      (teams.length ? ` or membership of ${teams.join(', ')}` : '') +
      (unknown.length
        ? ` (membership of ${unknown.join(', ')} could not be read: the token needs organization members: read)`
        : ''),
  };
}
