/**
 * The maintainers' page in the App's server (issue 37), off unless `INTERLOCK_PAGE_URL` is set: a login with
 * GitHub (the App's user authorization web flow, a `state` tied to the browser by a sealed cookie, PKCE S256), a
 * sealed session cookie any replica opens (`sessions.ts`), a logout that revokes the token at GitHub
 * (`revocation.ts`), and the page itself (`src/approvals/page/serve.ts`) under `/interlock`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConditionalCache } from '../../approvals/page/conditional.js';
import { GitHubBackend } from '../../approvals/page/github-backend.js';
import { crossSite, PageServer, readForm, sameToken } from '../../approvals/page/serve.js';
import { type ClientTuning, createClient, type GitHubClient } from '../../github/client.js';
import { NoticeCookie } from './notice-cookie.js';
import { revokeToken, TokenChecks } from './revocation.js';
import { Sealer, type Session, Sessions } from './sessions.js';

const PAGE_BASE = '/interlock';

export interface PageConfig {
  /** Where people reach the App (`https://interlock.example.com`); the callback is `<url>/interlock/callback`. */
  url: string;
  clientId: string;
  clientSecret: string;
  /** github.com, or a GitHub Enterprise Server's web root. */
  webUrl: string;
  /** The REST API root. */
  apiUrl: string;
  journalBranch: string;
  sessionHours: number;
  cacheSeconds: number;
  /** The keys that seal the page's cookies, the current one first (`INTERLOCK_PAGE_KEYS`). */
  keys: Buffer[];
  /** The App's client tuning (`clientTuning`): the person's own requests keep the same deadline. */
  tuning?: ClientTuning;
  /** An approval's claim on its dispatch (`INTERLOCK_DISPATCH_LEASE_MS`, `HandlerDeps.dispatchLeaseMs`). */
  dispatchLeaseMs?: number;
}

/** Why the page's configuration cannot serve, or undefined. A plain-HTTP page is allowed on localhost only. */
export function pageConfigProblem(c: Pick<PageConfig, 'url'>): string | undefined {
  let u: URL;
  try {
    u = new URL(c.url);
  } catch {
    return `INTERLOCK_PAGE_URL is not a URL: ${c.url}`;
  }
  if (u.pathname !== '/' || u.search || u.hash)
    return 'INTERLOCK_PAGE_URL must be an origin (https://host[:port]), no path';
  if (u.protocol === 'https:') return undefined;
  if (u.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname)) return undefined;
  return 'INTERLOCK_PAGE_URL must be https:// (plain http only on localhost, for development)';
}

function redirect(res: ServerResponse, to: string, extra: Record<string, string> = {}): void {
  res.writeHead(303, { location: to, 'cache-control': 'no-store', ...extra }).end();
}

function text(res: ServerResponse, status: number, body: string): void {
  res
    .writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
    .end(`${body}\n`);
}

/**
 * The token exchange of the web flow: the code and the PKCE verifier for a user access token. Never sent twice: a
 * code works once, so after a failed or lost answer GitHub may have used it; the person logs in again.
 */
async function exchange(c: PageConfig, code: string, verifier: string): Promise<string> {
  let r: Response;
  try {
    r = await fetch(`${c.webUrl}/login/oauth/access_token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: c.clientId,
        client_secret: c.clientSecret,
        code,
        redirect_uri: `${c.url}${PAGE_BASE}/callback`,
        code_verifier: verifier,
      }),
      signal: AbortSignal.timeout(c.tuning?.requestTimeoutMs ?? 30_000),
    });
  } catch (e) {
    const why = (e as Error).name === 'TimeoutError' ? 'no answer in time' : (e as Error).message;
    throw new Error(`GitHub's answer to the token exchange was lost (${why})`);
  }
  const raw = await r.text().catch(() => '');
  let body: { access_token?: string; error?: string; error_description?: string } = {};
  try {
    body = JSON.parse(raw) as typeof body;
  } catch {
    // Not JSON: a proxy's or GitHub's error page; the status says what happened.
  }
  if (!r.ok) throw new Error(`GitHub answered ${r.status} to the token exchange`);
  if (!body.access_token)
    throw new Error(
      `GitHub refused the login: ${body.error ?? 'no token in its answer'} ${body.error_description ?? ''}`.trim(),
    );
  return body.access_token;
}

function loggedOut(res: ServerResponse, notRevoked: boolean): void {
  const warning = notRevoked
    ? '<p>This browser forgot the login, but GitHub did not confirm that its token was revoked: it ends by itself when the login would have (INTERLOCK_PAGE_SESSION_HOURS). Revoke it now under GitHub&#39;s Settings, Applications, Authorized GitHub Apps.</p>'
    : '';
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Logged out &middot; interlock</title></head><body><main><h1>Logged out</h1>${warning}<p><a href="/interlock/login">Log in with GitHub</a></p></main></body></html>`,
  );
}

/** The page with its login: `handle` is Probot's `addHandler` handler (true when it answered the request). */
export class PageApp {
  readonly #origin: string;
  readonly #sessions: Sessions;
  readonly #page: PageServer;
  readonly #userClient: (token: string) => GitHubClient;
  readonly #checks: TokenChecks;
  /** The session of a request being answered, once its token was checked (`viewer` is synchronous). */
  readonly #viewers = new WeakMap<IncomingMessage, Session>();

  constructor(
    private readonly c: PageConfig,
    installationClient: (id: number) => Promise<GitHubClient>,
  ) {
    this.#origin = new URL(c.url).origin;
    const secure = this.#origin.startsWith('https:');
    const name = secure ? '__Host-interlock-session' : 'interlock-session';
    const sealer = new Sealer(c.keys);
    this.#sessions = new Sessions(name, secure, c.sessionHours * 3_600_000, sealer);
    this.#checks = new TokenChecks(this.#revocation());
    this.#userClient = (token) => createClient({ token, baseUrl: c.apiUrl, retries: 1, ...c.tuning });
    const backend = new GitHubBackend({
      webUrl: c.webUrl,
      journalBranch: c.journalBranch,
      userClient: this.#userClient,
      installationClient,
      conditional: new ConditionalCache(),
      ttlMs: c.cacheSeconds * 1000,
      dispatchLeaseMs: c.dispatchLeaseMs,
    });
    this.#page = new PageServer({
      base: PAGE_BASE,
      origin: this.#origin,
      backend,
      refreshSeconds: 60,
      viewer: (req) => {
        const s = this.#viewers.get(req);
        return s ? { login: s.login, csrf: s.csrf, session: { login: s.login, token: s.token } } : undefined;
      },
      anonymous: (_req, res) => redirect(res, `${PAGE_BASE}/login`),
      notices: new NoticeCookie(name.replace(/session$/, 'notice'), secure, sealer),
    });
  }

  #revocation() {
    const { apiUrl, clientId, clientSecret } = this.c;
    return { apiUrl, clientId, clientSecret, timeoutMs: this.c.tuning?.requestTimeoutMs ?? 30_000 };
  }

  /** Sends the browser to GitHub's authorize page with a state and a PKCE challenge sealed in a cookie. */
  #login(res: ServerResponse): void {
    const { state, challenge, cookie } = this.#sessions.beginLogin();
    const to = new URL(`${this.c.webUrl}/login/oauth/authorize`);
    to.searchParams.set('client_id', this.c.clientId);
    to.searchParams.set('redirect_uri', `${this.c.url}${PAGE_BASE}/callback`);
    to.searchParams.set('state', state);
    to.searchParams.set('code_challenge', challenge);
    to.searchParams.set('code_challenge_method', 'S256');
    redirect(res, to.toString(), { 'set-cookie': cookie });
  }

  async #callback(req: IncomingMessage, url: URL, res: ServerResponse): Promise<void> {
    const verifier = this.#sessions.takeLogin(req, url.searchParams.get('state'));
    const code = url.searchParams.get('code');
    if (!verifier || !code)
      return text(
        res,
        400,
        'this login was not started in this browser, or is used or expired: start again at /interlock/login',
      );
    try {
      const token = await exchange(this.c, code, verifier);
      const { data } = await this.#userClient(token)
        .rest.users.getAuthenticated()
        .catch((e: Error) => {
          throw new Error(`GitHub did not say who you are (GET /user: ${e.message})`);
        });
      const made = this.#sessions.create(data.login, token);
      res.setHeader('set-cookie', [made.cookie, this.#sessions.clearLoginCookie()]);
      redirect(res, `${PAGE_BASE}/`);
    } catch (e) {
      text(
        res,
        502,
        `the login did not complete: ${(e as Error).message}. No session was made: log in again at ${PAGE_BASE}/login`,
      );
    }
  }

  async #logout(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const s = this.#sessions.of(req);
    const cross = crossSite(req, this.#origin);
    const fields = await readForm(req);
    if (cross || !s || !sameToken(fields?.get('csrf'), s.csrf))
      return text(res, 403, cross ?? 'refused: no session or no valid CSRF token');
    this.#checks.forget(s.token);
    const failed = await revokeToken(this.#revocation(), s.token);
    const to = failed ? `${PAGE_BASE}/logged-out?revoked=no` : `${PAGE_BASE}/logged-out`;
    redirect(res, to, { 'set-cookie': this.#sessions.clearCookie() });
  }

  /** The request's session, if its token still works at GitHub (a logout elsewhere revoked it). */
  async #session(req: IncomingMessage): Promise<Session | undefined> {
    const s = this.#sessions.of(req);
    return s && (await this.#checks.valid(s.token, s.login)) ? s : undefined;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', this.#origin);
    const route = `${req.method} ${url.pathname}`;
    if (route === `GET ${PAGE_BASE}/login`) this.#login(res);
    else if (route === `GET ${PAGE_BASE}/callback`) await this.#callback(req, url, res);
    else if (route === `POST ${PAGE_BASE}/logout`) await this.#logout(req, res);
    else if (route === `GET ${PAGE_BASE}/logged-out`)
      loggedOut(res, url.searchParams.get('revoked') === 'no');
    else if (!url.pathname.startsWith(PAGE_BASE)) return false;
    else if (!['/', '/run', '/act'].includes(url.pathname.slice(PAGE_BASE.length) || '/')) return false;
    else {
      const s = await this.#session(req);
      if (s) this.#viewers.set(req, s);
      else if (this.#sessions.of(req)) res.setHeader('set-cookie', this.#sessions.clearCookie());
      return this.#page.handle(req, res);
    }
    return true;
  }
}
