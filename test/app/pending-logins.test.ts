// Pending logins are bounded (issue 46): the App's server keeps nothing per login in progress, so anyone may start
// logins without end (GET /interlock/login needs no session) and the process does not grow; what bounds a login in
// progress is its sealed cookie, honoured for ten minutes by its own clock, and only as the server sealed it. The
// App's server runs in this process (the heap measured is its own) against the local GitHub's login pages.
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Sealer } from '../../src/app/page/sessions.js';
import { authorizeAs, logIn, openCallback, type PageWorld, startPageWorld } from './page-world.js';
import { PEOPLE } from './world.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** One unauthenticated login start, on a connection of its own (no client pool kept in the heap). */
function beginLogin(origin: string): Promise<{ status: number; cookie: string }> {
  return new Promise((resolve, reject) => {
    const r = request(`${origin}/interlock/login`, { agent: false }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, cookie: res.headers['set-cookie']?.[0]?.split(';')[0] ?? '' }),
      );
    });
    r.on('error', reject);
    r.end();
  });
}

/** Starts `n` logins, 20 at a time; the heap in use after a full collection. */
async function heapAfterLogins(origin: string, n: number): Promise<number> {
  for (let i = 0; i < n; i += 20) {
    const started = await Promise.all(Array.from({ length: 20 }, () => beginLogin(origin)));
    expect(started.every((s) => s.status === 303 && s.cookie.startsWith('interlock-login=v1.'))).toBe(true);
  }
  await new Promise((r) => setTimeout(r, 200));
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** What a callback with this cookie comes to. */
async function callbackWith(
  cookie: string,
  url: string,
): Promise<{ status: number; text: string; session: boolean }> {
  const r = await openCallback({ url, cookie });
  const session = r.headers.getSetCookie().some((c) => c.startsWith('interlock-session=v1.'));
  return { status: r.status, text: await r.text(), session };
}

describe('pending logins are bounded (the login page of the App, unauthenticated)', () => {
  let pw: PageWorld;
  beforeAll(async () => {
    pw = await startPageWorld();
  });
  afterAll(() => pw.close());

  it('thousands of logins started and never finished leave nothing growing in the process', async () => {
    const first = await authorizeAs(pw, PEOPLE.writer);
    // Warm the server's code paths, then measure what 6,000 more pending logins keep.
    const warm = await heapAfterLogins(pw.origin, 2000);
    const after = await heapAfterLogins(pw.origin, 6000);
    const perLogin = (after - warm) / 6000;
    // A pending login kept on the server (its state, verifier and expiry in a map) costs some 250 bytes.
    expect(perLogin, `${Math.round(perLogin)} bytes kept per pending login`).toBeLessThan(100);
    // Nothing was evicted to make room either: the login begun before them all still ends.
    expect((await callbackWith(first.cookie, first.url)).status).toBe(303);
  }, 180_000);

  it('a login cookie altered, sealed under another key, or carrying another purpose opens nothing', async () => {
    const cb = await authorizeAs(pw, PEOPLE.writer);
    const state = new URL(cb.url).searchParams.get('state')!;
    const [name, value] = cb.cookie.split('=') as [string, string];
    const raw = Buffer.from(value.slice(3), 'base64url');
    const forged: Record<string, string> = {};
    for (const at of [0, 12, raw.length - 1]) {
      const flipped = Buffer.from(raw);
      flipped[at]! ^= 1;
      forged[`byte ${at} changed`] = `v1.${flipped.toString('base64url')}`;
    }
    const verifier = randomBytes(32).toString('base64url');
    const far = { state, verifier, expires: Date.now() + 24 * 3_600_000 };
    forged['sealed under a key not in INTERLOCK_PAGE_KEYS'] = new Sealer([randomBytes(32)]).seal(
      'login',
      far,
    );
    forged['unsealed JSON'] = `v1.${Buffer.from(JSON.stringify(far)).toString('base64url')}`;
    const sessionCookie = (await logIn(pw, PEOPLE.writer)).split('=')[1]!;
    forged['a session cookie'] = sessionCookie;
    for (const [what, text] of Object.entries(forged)) {
      const r = await callbackWith(`${name}=${text}`, cb.url);
      expect({ what, status: r.status, session: r.session }).toEqual({ what, status: 400, session: false });
    }
    // The cookie as the server sealed it still ends the login: only the changes were refused.
    expect((await callbackWith(cb.cookie, cb.url)).status).toBe(303);
  });
});

describe("pending logins are bounded: a login's ten minutes, by the server's clock", () => {
  let pw: PageWorld;
  beforeAll(async () => {
    // The server's clock is the Date it starts with: a fake one that runs on with real time, and jumps when told.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    pw = await startPageWorld();
  });
  afterAll(async () => {
    await pw.close();
    vi.useRealTimers();
  });

  it("a login's cookie is refused after its ten minutes, though the browser still sends it", async () => {
    const late = await authorizeAs(pw, PEOPLE.writer);
    const inTime = await authorizeAs(pw, PEOPLE.writer);
    vi.setSystemTime(Date.now() + 9 * 60_000 + 50_000);
    expect((await callbackWith(inTime.cookie, inTime.url)).status).toBe(303);
    vi.setSystemTime(Date.now() + 11_000);
    const refused = await callbackWith(late.cookie, late.url);
    expect(refused).toMatchObject({ status: 400, session: false });
    expect(refused.text).toMatch(/not started in this browser, or is used or expired/);
  });
});
