// The maintainers' page in the App's server (issue 37), without a browser: the login, the two repositories'
// waiting nodes, an approval from the page through the comment command's path, and every refusal (CSRF, Origin,
// Sec-Fetch-Site, read only, a stale page, a second submit).
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildManifest, envText } from '../../src/app/manifest.js';
import { pageConfigProblem } from '../../src/app/page/page-app.js';
import { Sessions } from '../../src/app/page/sessions.js';
import { pageConfigOf, readServerEnv } from '../../src/app/server.js';
import { formFields, getPage, logIn, type PageWorld, post, startPageWorld } from './page-world.js';
import { PEOPLE } from './world.js';

describe("the maintainers' page behind a GitHub login", () => {
  let pw: PageWorld;
  beforeAll(async () => {
    pw = await startPageWorld();
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

  it('a state is used once: replaying the callback makes no second session', async () => {
    const start = await fetch(`${pw.origin}/interlock/login`, { redirect: 'manual' });
    const form = new URLSearchParams(new URL(start.headers.get('location')!).searchParams);
    form.set('login', PEOPLE.writer);
    const granted = await fetch(`${pw.world.server.url}/login/oauth/authorize`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
    });
    const callback = granted.headers.get('location')!;
    expect((await fetch(callback, { redirect: 'manual' })).status).toBe(303);
    expect((await fetch(callback, { redirect: 'manual' })).status).toBe(400);
  });

  it('the session cookie is HttpOnly and SameSite=Lax (plain-HTTP localhost: no __Host- prefix, no Secure)', async () => {
    const start = await fetch(`${pw.origin}/interlock/login`, { redirect: 'manual' });
    const form = new URLSearchParams(new URL(start.headers.get('location')!).searchParams);
    form.set('login', PEOPLE.writer);
    const granted = await fetch(`${pw.world.server.url}/login/oauth/authorize`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
    });
    const done = await fetch(granted.headers.get('location')!, { redirect: 'manual' });
    expect(done.headers.get('set-cookie')).toMatch(
      /^interlock-session=[\w-]{40,}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=28800$/,
    );
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
    const { html } = await getPage(pw, cookie);
    expect(html).toContain('Already done: this form was submitted before');
    expect(html).toContain('acme/widgets: <strong>0</strong>');
  });
});

describe('sessions expire', () => {
  it('a session is gone after its life, and a login state after ten minutes', () => {
    let now = 0;
    const sessions = new Sessions('interlock-session', false, 1000, () => now);
    const s = sessions.create('bob', 'ghu_x');
    const req = { headers: { cookie: `other=1; interlock-session=${s.id}` } } as IncomingMessage;
    expect(sessions.of(req)?.login).toBe('bob');
    now = 1000;
    expect(sessions.of(req)).toBeUndefined();
    const { state } = sessions.beginLogin();
    now += 10 * 60_000;
    expect(sessions.takeLogin(state)).toBeUndefined();
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
    );
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
  });
});
