// The maintainers' page's reads (issue 37): a conditional read answered 304 is served from the copy kept (GitHub
// does not count it against the rate limit), and a paginated list read twice is the same list.
import { describe, expect, it } from 'vitest';
import { ConditionalCache, TtlCache } from '../../src/approvals/page/conditional.js';
import { createClient } from '../../src/github/client.js';
import { startGitHubServer } from '../support/github-server.js';

describe('conditional reads and the short cache', () => {
  it('a second read sends If-None-Match, gets 304 and the same answer, pages included', async () => {
    const gh = await startGitHubServer({
      tokens: { 'bob-token': 'bob' },
      repos: Array.from({ length: 3 }, (_, i) => ({
        owner: 'acme',
        name: `r${i}`,
        collaborators: { bob: 'write' as const },
      })),
    });
    try {
      const cache = new ConditionalCache();
      const lists: string[][] = [];
      for (let k = 0; k < 2; k++) {
        const c = cache.attach(
          createClient({ token: 'bob-token', baseUrl: gh.url, retries: 0, writeIntervalMs: 0 }),
          'bob',
        );
        const list = await c.paginate(c.rest.apps.listInstallationReposForAuthenticatedUser, {
          installation_id: gh.state.app.installationId,
          per_page: 100,
        });
        lists.push(list.map((r) => r.full_name));
      }
      expect(lists[1]).toEqual(lists[0]);
      expect(lists[0]).toHaveLength(3);
      expect(cache.notModified).toBe(1);
      expect(gh.requests.all.map((r) => r.status)).toEqual([200, 304]);
    } finally {
      await gh.close();
    }
  });

  it('a value is kept for its life, then made again', async () => {
    let now = 0;
    let made = 0;
    const ttl = new TtlCache<number>(1000, () => now);
    const get = () => ttl.get('k', async () => ++made);
    expect([await get(), await get()]).toEqual([1, 1]);
    now = 1000;
    expect(await get()).toBe(2);
  });

  it('holds only what was asked for within about a life, however many keys came before (issue 50)', async () => {
    let now = 0;
    const ttl = new TtlCache<number>(1000, () => now);
    for (let i = 0; i < 1000; i++) await ttl.get(`person-${i}`, async () => i);
    expect(ttl.size).toBe(1000);
    now = 500;
    await ttl.get('person-late', async () => 0);
    expect(ttl.size).toBe(1001);
    // A life later the thousand are past theirs: the next value made drops them.
    now = 1200;
    await ttl.get('person-next', async () => 0);
    expect(ttl.size).toBe(2);
  });
});
