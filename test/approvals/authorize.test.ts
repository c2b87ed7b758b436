// Authorization is a pure decision over facts the shell gathers: no mocks needed.
import { describe, expect, it } from 'vitest';
import {
  type AuthFacts,
  authorize,
  isBot,
  permissionOf,
  screenEvent,
  teamsToAsk,
} from '../../src/approvals/authorization/authorize.js';
import type { Approvals } from '../../src/config/schema.js';

const approvals = (over: Partial<Approvals> = {}): Approvals => ({
  permission: 'write',
  approvers: [],
  required: 1,
  ...over,
});
const facts = (over: Partial<AuthFacts> = {}): AuthFacts => ({
  login: 'ann',
  permission: 'read',
  teams: {},
  ...over,
});

describe('screenEvent', () => {
  const ann = { login: 'ann', type: 'User' };
  it('passes created comments and button presses from people', () => {
    expect(screenEvent({ action: 'created', sender: ann, author: ann })).toEqual({ ok: true });
    expect(screenEvent({ action: 'requested_action', sender: ann })).toEqual({ ok: true });
  });

  it('stops edited and deleted comments', () => {
    expect(screenEvent({ action: 'edited', sender: ann })).toMatchObject({
      ok: false,
      why: /edited, not created/,
    });
    expect(screenEvent({ action: 'deleted', sender: ann })).toMatchObject({ ok: false });
  });

  it('stops bots, by type or by a [bot] login, as sender or as author', () => {
    expect(isBot({ login: 'x', type: 'Bot' })).toBe(true);
    expect(isBot({ login: 'Dependabot[BOT]', type: 'User' })).toBe(true);
    expect(isBot({ login: 'robot', type: 'User' })).toBe(false);
    expect(screenEvent({ action: 'created', sender: ann, author: { login: 'x[bot]' } })).toMatchObject({
      ok: false,
    });
  });
});

describe('permissionOf', () => {
  it('prefers the built-in role name (maintain, triage), else the legacy permission', () => {
    expect(permissionOf({ permission: 'write', role_name: 'maintain' })).toBe('maintain');
    expect(permissionOf({ permission: 'read', role_name: 'triage' })).toBe('triage');
    expect(permissionOf({ permission: 'write', role_name: 'release-manager' })).toBe('write');
    expect(permissionOf({ permission: 'nonsense' })).toBe('none');
    expect(permissionOf(null)).toBe('none');
  });
});

describe('authorize', () => {
  it.each([
    ['admin', true],
    ['maintain', true],
    ['write', true],
    ['triage', false],
    ['read', false],
    ['none', false],
  ] as const)('with write required, %s permission → %s', (permission, ok) => {
    expect(authorize(approvals(), 'command', facts({ permission })).ok).toBe(ok);
  });

  it('honours a stricter configured permission', () => {
    expect(
      authorize(approvals({ permission: 'admin' }), 'command', facts({ permission: 'maintain' })),
    ).toEqual({
      ok: false,
      reason: '@ann has maintain permission; this command needs admin',
    });
  });

  it('lets a listed login in whatever its permission (case-insensitively)', () => {
    expect(authorize(approvals({ approvers: ['Ann'] }), 'command', facts())).toEqual({
      ok: true,
      via: 'listed in approvals.approvers',
    });
  });

  it('lets an active member of a listed team in; a pending one, no', () => {
    const a = approvals({ approvers: ['acme/Release'] });
    expect(authorize(a, 'command', facts({ teams: { 'acme/release': 'active' } }))).toEqual({
      ok: true,
      via: 'member of acme/Release',
    });
    expect(authorize(a, 'command', facts({ teams: { 'acme/release': 'pending' } })).ok).toBe(false);
  });

  it('says when a team membership could not be read', () => {
    const r = authorize(
      approvals({ approvers: ['acme/release'] }),
      'command',
      facts({ teams: { 'acme/release': 'unknown' } }),
    );
    expect(r).toMatchObject({
      ok: false,
      reason: /could not be read: the token needs organization members: read/,
    });
  });

  it('status needs only read', () => {
    expect(authorize(approvals(), 'read', facts({ permission: 'read' })).ok).toBe(true);
    expect(authorize(approvals(), 'read', facts({ permission: 'none' })).ok).toBe(false);
  });
});

describe('teamsToAsk', () => {
  const a = approvals({ approvers: ['lee', 'acme/release', 'acme/ops'] });
  it('asks nothing when the permission or a listed login settles it', () => {
    expect(teamsToAsk(a, 'command', 'bob', 'write')).toEqual([]);
    expect(teamsToAsk(a, 'command', 'LEE', 'read')).toEqual([]);
    expect(teamsToAsk(a, 'read', 'bob', 'none')).toEqual([]);
  });
  it('otherwise asks about every listed team', () => {
    expect(teamsToAsk(a, 'command', 'bob', 'read')).toEqual(['acme/release', 'acme/ops']);
  });
});
