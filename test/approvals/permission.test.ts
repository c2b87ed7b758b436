/** Authorization with I/O: the facts gathered from GitHub, and the decision on them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize } from '../../src/approvals/authorization/authorize.js';
import { gatherAuthFacts } from '../../src/approvals/authorization/permission.js';
import { createClient } from '../../src/github/client.js';
import { PEOPLE, startWorld, type World } from '../app/world.js';

const approvals = { required: 1, permission: 'write', approvers: ['lee', 'acme-org/releasers'] } as never;
const TEAM_READS = 'GET /orgs/{org}/teams/{team_slug}/memberships/{username}';

describe('gatherAuthFacts against the local GitHub', () => {
  let world: World;
  let deps: Parameters<typeof gatherAuthFacts>[0];
  beforeAll(async () => {
    world = await startWorld();
    deps = {
      octokit: createClient({ token: 'test', baseUrl: world.server.url, retries: 0, writeIntervalMs: 0 }),
      repo: { owner: 'acme', repo: 'widgets' },
    };
  });
  afterAll(() => world.close());

  const decide = async (login: string, need: 'command' | 'read' = 'command') => {
    const mark = world.server.requests.mark();
    const facts = await gatherAuthFacts(deps, approvals, need, login);
    const teamReads = world.server.requests.filter({ since: mark, kind: TEAM_READS }).length;
    return { facts, decision: authorize(approvals, need, facts), teamReads };
  };

  it('lets a writer settle without asking about any team', async () => {
    const r = await decide(PEOPLE.writer);
    expect(r.decision).toEqual({ ok: true, via: 'write permission' });
    expect(r.teamReads).toBe(0);
  });

  it('lets an active member of a listed team settle, asking GitHub about that team', async () => {
    const r = await decide(PEOPLE.teamActive);
    expect(r.decision).toEqual({ ok: true, via: 'member of acme-org/releasers' });
    expect(r.teamReads).toBe(1);
  });

  it('refuses a pending member, naming the permission and the team this command needs', async () => {
    const r = await decide(PEOPLE.teamPending);
    expect(r.facts.teams).toEqual({ 'acme-org/releasers': 'pending' });
    expect(r.decision).toEqual({
      ok: false,
      reason: '@pat has read permission; this command needs write or membership of acme-org/releasers',
    });
  });

  it('lets anyone who can read a public repository ask for status', async () => {
    expect((await decide(PEOPLE.stranger, 'read')).decision).toEqual({ ok: true, via: 'read permission' });
  });
});

describe('gatherAuthFacts on a private repository', () => {
  it('refuses status to someone who cannot read it', async () => {
    const world = await startWorld({ private: true });
    try {
      const deps = {
        octokit: createClient({ token: 'test', baseUrl: world.server.url, retries: 0, writeIntervalMs: 0 }),
        repo: { owner: 'acme', repo: 'widgets' },
      };
      const facts = await gatherAuthFacts(deps, approvals, 'read', PEOPLE.stranger);
      expect(authorize(approvals, 'read', facts)).toEqual({
        ok: false,
        reason: '@mallory cannot read this repository',
      });
    } finally {
      await world.close();
    }
  });
});
