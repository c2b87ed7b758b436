// The maintainers' page in the App's server (issue 37), without a browser: the login, the two repositories'
// waiting nodes, an approval from the page through the comment command's path, and every refusal (CSRF, Origin,
// Sec-Fetch-Site, read only, a stale page, a second submit). The page reads runs wherever the git store keeps them
// (issue 45): each story runs with the runs on their own branches (what the bundled action writes today) and on
// the journal branch of before, both written by the git store's own writer.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageConfigOf, readServerEnv } from '../../src/app/env.js';
import { buildManifest, envText } from '../../src/app/manifest.js';
import { pageConfigProblem } from '../../src/app/page/page-app.js';
import { parsePageKeys, Sealer, Sessions } from '../../src/app/page/sessions.js';
import { GIT_LAYOUTS, gitLayoutOf } from '../support/seed-journal.js';
import {
  authorizeAs,
  formFields,
  getPage,
  logIn,
  openCallback,
  type PageWorld,
  post,
  startPageWorld,
  startReplica,
} from './page-world.js';
import { PEOPLE } from './world.js';

describe.each(GIT_LAYOUTS)("the maintainers' page behind a GitHub login, runs kept on the %s", (layout) => {
  let pw: PageWorld;
  beforeAll(async () => {
    pw = await startPageWorld({}, 'quiet', { layout });
  });
  afterAll(() => pw.close());

  it('asks for a login first, and refuses a callback whose state it did not make', async () => {
    const r = await fetch(`${pw.origin}/interlock/`, { redirect: 'manual' });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('/interlock/login');
    const login = await fetch(`${pw.origin}/interlock/login`, { redirect: 'manual' });
    const to = new URL(login.headers.get('location')!);
    expect(to.pathname).toBe('/login/oauth/authorize');
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    expect(to.searchParams.get('redirect_uri')).toBe(`${pw.origin}/interlock/callback`);
    const forged = await fetch(`${pw.origin}/interlock/callback?code=abc&state=made-up`, {
      redirect: 'manual',
    });
    expect(forged.status).toBe(400);
  });

  it('a callback opened in another browser is refused (login CSRF), and one replayed makes no second session', async () => {
    // The attacker begins a login and authorizes as themselves, then sends the victim the callback URL.
    const attackers = await authorizeAs(pw, PEOPLE.reader);
    const victim = await fetch(attackers.url, { redirect: 'manual' });
    expect(victim.status).toBe(400);
    expect(await victim.text()).toMatch(/not started in this browser/);
    expect(victim.headers.getSetCookie().some((c) => c.startsWith('interlock-session=v1.'))).toBe(false);
    // Another browser's own login cookie does not open this state either.
    const other = await fetch(`${pw.origin}/interlock/login`, { redirect: 'manual' });
    const otherCookie = other.headers.get('set-cookie')!.split(';')[0]!;
    expect((await openCallback({ url: attackers.url, cookie: otherCookie })).status).toBe(400);
    // The browser that began it logs in; the same callback again (the code is used) makes no session.
    const mine = await authorizeAs(pw, PEOPLE.writer);
    expect((await openCallback(mine)).status).toBe(303);
    const again = await openCallback(mine);
    expect(again.status).toBe(502);
    expect(again.headers.getSetCookie().some((c) => c.startsWith('interlock-session=v1.'))).toBe(false);
  });

  it('the session and login cookies are HttpOnly and SameSite=Lax (plain-HTTP localhost: no __Host- prefix, no Secure)', async () => {
    const cb = await authorizeAs(pw, PEOPLE.writer);
    const start = await fetch(`${pw.origin}/interlock/login`, { redirect: 'manual' });
    expect(start.headers.get('set-cookie')).toMatch(
      /^interlock-login=v1\.[\w-]{40,}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=600$/,
    );
    const done = await openCallback(cb);
    expect(done.headers.getSetCookie()).toEqual([
      expect.stringMatching(
        /^interlock-session=v1\.[\w-]{40,}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=28800$/,
      ),
      'interlock-login=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0',
    ]);
    // The cookie holds the token encrypted: neither it nor the login can be read from it.
    const sealed = Buffer.from(done.headers.getSetCookie()[0]!.split(/[=;]/)[1]!.slice(3), 'base64url');
    expect(sealed.toString('latin1')).not.toMatch(/ghu_|bob/);
  });

  it('logs out only with the CSRF token from the same origin; the session is gone after', async () => {
    const cookie = await logIn(pw, PEOPLE.writer);
    const csrf = /name="csrf" value="([^"]+)"/.exec((await getPage(pw, cookie)).html)![1]!;
    const out = (body: URLSearchParams, origin = pw.origin) =>
      fetch(`${pw.origin}/interlock/logout`, {
        method: 'POST',
        body,
        headers: { cookie, origin },
        redirect: 'manual',
      });
    expect((await out(new URLSearchParams())).status).toBe(403);
    expect((await out(new URLSearchParams({ csrf }), 'https://evil.example')).status).toBe(403);
    const done = await out(new URLSearchParams({ csrf }));
    expect(done.status).toBe(303);
    expect(done.headers.get('set-cookie')).toMatch(/^interlock-session=; .*Max-Age=0$/);
    expect((await getPage(pw, cookie)).status).toBe(303);
  });

  it("lists both repositories' waiting nodes, escaped, with counts and the comment commands", async () => {
    expect(gitLayoutOf(pw.world.repo, 'fix/issue-1')).toBe(layout);
    expect(gitLayoutOf(pw.gadgets, 'fix/issue-2')).toBe(layout);
    const cookie = await logIn(pw, PEOPLE.writer);
    const { status, html } = await getPage(pw, cookie);
    expect(status).toBe(200);
    expect(html).toContain('logged in as <strong>@bob</strong>');
    expect(html).toContain('acme/gadgets: <strong>1</strong>');
    expect(html).toContain('acme/widgets: <strong>1</strong>');
    expect(html).toContain('held: attempt 1 was interrupted');
    expect(html).toContain('escalated after 2 failed attempts');
    expect(html).toContain('<code>/approve-rerun deploy fix/issue-1</code>');
    // A hostile title is shown as text: no script, no link made of its Markdown.
    expect(html).toContain(
      'issue #2: &lt;script&gt;alert(&quot;gadgets&quot;)&lt;/script&gt; [link](https://evil.example)</a>',
    );
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('href="https://evil.example"');
  });

  it('refuses a POST without the CSRF token, from another origin, or another site', async () => {
    const cookie = await logIn(pw, PEOPLE.writer);
    const fields = formFields((await getPage(pw, cookie)).html, 'acme/widgets', 'deploy', 'approve-rerun');
    const noToken = new URLSearchParams(fields);
    noToken.delete('csrf');
    expect((await post(pw, cookie, noToken)).status).toBe(403);
    const wrong = new URLSearchParams(fields);
    wrong.set('csrf', 'x'.repeat(32));
    expect((await post(pw, cookie, wrong)).status).toBe(403);
    expect((await post(pw, cookie, fields, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(pw, cookie, fields, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect(pw.world.journal().events.filter((e) => e.type === 'RerunApproved')).toEqual([]);
  });

  it('a person with read access sees no control, and a forged POST is 403', async () => {
    const writer = await logIn(pw, PEOPLE.writer);
    const fields = formFields((await getPage(pw, writer)).html, 'acme/widgets', 'deploy', 'approve-rerun');
    const reader = await logIn(pw, PEOPLE.reader);
    const { html } = await getPage(pw, reader);
    expect(html).toContain('Read only: @rita has read permission; this command needs write');
    expect(html).not.toContain('action="/interlock/act"');
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    fields.set('csrf', csrf);
    const r = await post(pw, reader, fields);
    expect(r.status).toBe(403);
    expect(await r.text()).toContain('@rita has read permission');
  });

  it('refuses a stale page: "this page is out of date"', async () => {
    const cookie = await logIn(pw, PEOPLE.writer);
    const fields = formFields((await getPage(pw, cookie)).html, 'acme/gadgets', 'deploy', 'approve-rerun');
    fields.set('attempt', '1');
    const r = await post(pw, cookie, fields);
    expect(r.status).toBe(409);
    expect(await r.text()).toContain(
      'this page is out of date: &quot;deploy&quot; waits on attempt 2 now, not 1',
    );
  });

  it('approves with guidance: an attributed comment, the dispatch, the row gone; a second submit counts once', async () => {
    const cookie = await logIn(pw, PEOPLE.writer);
    const fields = formFields((await getPage(pw, cookie)).html, 'acme/widgets', 'deploy', 'approve-rerun');
    fields.set('guidance', 'Roll back first <script>x</script>');
    const r = await post(pw, cookie, fields);
    expect(r.status).toBe(303);
    const again = await post(pw, cookie, fields);
    expect(again.status).toBe(303);
    const approvals = pw.world.journal().events.filter((e) => e.type === 'RerunApproved');
    expect(approvals).toEqual([
      expect.objectContaining({ approved_by: PEOPLE.writer, guidance: 'Roll back first <script>x</script>' }),
    ]);
    expect(pw.world.repo.dispatches).toHaveLength(1);
    const said = pw.world.repo
      .commentsOn(1)
      .map((c) => c.body)
      .filter((b) => b.includes('from the interlock page by @bob'));
    expect(said).toHaveLength(1);
    // The line waits in a sealed cookie for the page the browser asks for next.
    const notice = again.headers
      .getSetCookie()
      .find((c) => c.startsWith('interlock-notice=v1.'))!
      .split(';')[0]!;
    const { html } = await getPage(pw, `${cookie}; ${notice}`);
    expect(html).toContain('Already done: this form was submitted before');
    expect(html).toContain('acme/widgets: <strong>0</strong>');
    // The approval went on where the run is: no second copy of its journal in the other layout.
    expect(gitLayoutOf(pw.world.repo, 'fix/issue-1')).toBe(layout);
  });
});

describe.each(GIT_LAYOUTS)(
  'two replicas with the same INTERLOCK_PAGE_KEYS, one restarted mid-story, runs kept on the %s',
  (layout) => {
    let pw: PageWorld;
    let b: PageWorld;
    let a2: PageWorld | undefined;
    beforeAll(async () => {
      pw = await startPageWorld({}, 'quiet', { layout });
      b = await startReplica(pw);
    });
    afterAll(async () => {
      await b.close();
      await (a2 ?? pw).app.close();
      await pw.world.close();
    });
    const sessionOf = (r: Response) =>
      r.headers
        .getSetCookie()
        .find((c) => c.startsWith('interlock-session=v1.'))
        ?.split(';')[0] ?? '';

    it('a login begun on one replica ends on the other, holds on both and after a restart; it approves through either', async () => {
      const cb = await authorizeAs(pw, PEOPLE.writer);
      // The load balancer sends GitHub's redirect back to the other replica.
      const onB = new URL(cb.url);
      onB.host = new URL(b.origin).host;
      const done = await openCallback({ url: onB.toString(), cookie: cb.cookie });
      expect(done.status).toBe(303);
      const cookie = sessionOf(done);
      expect((await getPage(pw, cookie)).html).toContain('logged in as <strong>@bob</strong>');
      expect((await getPage(b, cookie)).html).toContain('logged in as <strong>@bob</strong>');
      // The first replica restarts (a deploy): the login is still good there, and the form it renders works on B.
      const port = Number(new URL(pw.origin).port);
      await pw.app.close();
      a2 = await startReplica(pw, port);
      // A browser sends a GET again when its kept-alive connection to the old process was closed; so does this.
      const { status, html } = await getPage(a2, cookie).catch(() => getPage(a2!, cookie));
      expect(status).toBe(200);
      const fields = formFields(html, 'acme/widgets', 'deploy', 'approve-rerun');
      expect((await post(b, cookie, fields)).status).toBe(303);
      expect(pw.world.journal().events.filter((e) => e.type === 'RerunApproved')).toEqual([
        expect.objectContaining({ approved_by: PEOPLE.writer }),
      ]);
    });

    it('a logout on one replica ends the login on the other (its token is revoked at GitHub)', async () => {
      const a = a2!;
      const cookie = sessionOf(await openCallback(await authorizeAs(a, PEOPLE.writer)));
      const { html } = await getPage(b, cookie);
      const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
      const out = await fetch(`${b.origin}/interlock/logout`, {
        method: 'POST',
        body: new URLSearchParams({ csrf }),
        headers: { cookie, origin: b.env.INTERLOCK_PAGE_URL! },
        redirect: 'manual',
      });
      expect(out.headers.get('location')).toBe('/interlock/logged-out');
      // A copy of the cookie kept after the logout opens nothing, on either replica.
      for (const replica of [a, b]) {
        const r = await getPage(replica, cookie);
        expect(r.status).toBe(303);
      }
    });
  },
);

describe('sealed sessions', () => {
  const key = () => randomBytes(32);
  const req = (cookie: string) => ({ headers: { cookie: `other=1; ${cookie}` } }) as IncomingMessage;

  it('a session is gone after its life, and a login state after ten minutes', () => {
    let now = 0;
    const sessions = new Sessions('interlock-session', false, 1000, new Sealer([key()]), () => now);
    const { cookie } = sessions.create('bob', 'ghu_x');
    expect(sessions.of(req(cookie.split(';')[0]!))?.login).toBe('bob');
    now = 1000;
    expect(sessions.of(req(cookie.split(';')[0]!))).toBeUndefined();
    const login = sessions.beginLogin();
    expect(sessions.takeLogin(req(login.cookie.split(';')[0]!), login.state)).toBeDefined();
    now += 10 * 60_000;
    expect(sessions.takeLogin(req(login.cookie.split(';')[0]!), login.state)).toBeUndefined();
  });

  it('opens under a key in INTERLOCK_PAGE_KEYS only: rotation keeps old logins, a dropped key ends them', () => {
    const [a, b] = [key(), key()];
    const made = new Sessions('interlock-session', false, 60_000, new Sealer([a])).create('bob', 'ghu_x');
    const c = req(made.cookie.split(';')[0]!);
    expect(new Sessions('interlock-session', false, 60_000, new Sealer([b, a])).of(c)?.token).toBe('ghu_x');
    expect(new Sessions('interlock-session', false, 60_000, new Sealer([b])).of(c)).toBeUndefined();
    expect(parsePageKeys(`${b.toString('base64')}, ${a.toString('base64')}`)).toEqual([b, a]);
    expect(parsePageKeys('c2hvcnQ=')).toMatch(/key 1 is not 32 bytes of base64: make one with `openssl rand/);
  });

  it('a changed byte, or a login cookie offered as a session, opens nothing', () => {
    const sealer = new Sealer([key()]);
    const sessions = new Sessions('interlock-session', false, 60_000, sealer);
    const value = sessions.create('bob', 'ghu_x').cookie.split(/[=;]/)[1]!;
    const flipped = `${value.slice(0, 20)}${value[20] === 'A' ? 'B' : 'A'}${value.slice(21)}`;
    expect(sessions.of(req(`interlock-session=${flipped}`))).toBeUndefined();
    const login = sessions.beginLogin().cookie.split(/[=;]/)[1]!;
    expect(sessions.of(req(`interlock-session=${login}`))).toBeUndefined();
    expect(sealer.open('login', login)).toMatchObject({ verifier: expect.any(String) });
  });
});

describe('the page is configured, never half on', () => {
  it('the manifest registers the login callback; the .env GitHub hands back turns the page on', () => {
    const target = {
      baseUrl: 'https://interlock.example.com',
      webhookPath: '/hooks',
      githubUrl: 'https://github.com',
      state: 's',
    };
    expect(buildManifest('name: interlock\n', target)).toMatchObject({
      callback_urls: ['https://interlock.example.com/interlock/callback'],
      request_oauth_on_install: false,
    });
    const env = envText(
      { id: 1, pem: 'k', webhook_secret: 'w', html_url: 'h', client_id: 'Iv1.x', client_secret: 'cs' },
      target.baseUrl,
      'a-fresh-key',
    );
    expect(env).toMatch(/\nINTERLOCK_PAGE_KEYS=a-fresh-key\n/);
    expect(env).toContain(
      'GITHUB_CLIENT_ID=Iv1.x\nGITHUB_CLIENT_SECRET=cs\nINTERLOCK_PAGE_URL=https://interlock.example.com\n',
    );
  });

  it('plain HTTP only on localhost, and the login needs the client id and secret', () => {
    expect(pageConfigProblem({ url: 'http://interlock.example.com' })).toMatch(/must be https/);
    expect(pageConfigProblem({ url: 'http://localhost:3000' })).toBeUndefined();
    expect(pageConfigProblem({ url: 'https://x.example/path' })).toMatch(/no path/);
    const base = { APP_ID: '1', WEBHOOK_SECRET: 's', PRIVATE_KEY: 'k' };
    expect(() => readServerEnv({ ...base, INTERLOCK_PAGE_URL: 'https://x.example' })).toThrow(
      /GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET/,
    );
    expect(pageConfigOf(readServerEnv(base))).toBeUndefined();
    const page = {
      ...base,
      INTERLOCK_PAGE_URL: 'https://x.example',
      GITHUB_CLIENT_ID: 'Iv1.x',
      GITHUB_CLIENT_SECRET: 'cs',
    };
    expect(() => readServerEnv(page)).toThrow(
      /the page needs INTERLOCK_PAGE_KEYS to seal its logins \(INTERLOCK_PAGE_KEYS is empty: set it to a key made with `openssl rand -base64 32`; every replica/,
    );
    const keys = randomBytes(32).toString('base64');
    expect(pageConfigOf(readServerEnv({ ...page, INTERLOCK_PAGE_KEYS: keys }))?.keys).toHaveLength(1);
  });
});
