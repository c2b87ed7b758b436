/**
 * GitHub's web flow for a GitHub App's user authorization, as github.com serves it (not the REST API): the
 * authorize page (`GET /login/oauth/authorize`, here with a "Sign in as" field standing in for github.com's own
 * login), its form (`POST`), which sends the browser back to `redirect_uri` with a one-time `code` and the
 * caller's `state`, and the token exchange (`POST /login/oauth/access_token`), which checks the client, the code,
 * the redirect URI and the PKCE verifier (S256) and answers a user access token (`ghu_…`) that acts as the person.
 * Errors come back as GitHub sends them: 200 with `{ error, error_description }`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Reply } from './router.js';
import type { GitHubState } from './state.js';

/** The App's client secret the local GitHub accepts: its client id with `-secret`. */
export const clientSecretOf = (clientId: string) => `${clientId}-secret`;

interface Grant {
  login: string;
  clientId: string;
  redirectUri: string;
  challenge?: string;
  method?: string;
}

const escapeText = (t: string) => t.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (body: string, status = 200): Reply => ({
  status,
  raw: Buffer.from(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorize</title></head><body><main>${body}</main></body></html>`,
  ),
  contentType: 'text/html; charset=utf-8',
});

export class OAuthFlow {
  readonly #codes = new Map<string, Grant>();
  constructor(private readonly state: GitHubState) {}

  get clientId(): string {
    return `Iv1.${this.state.app.slug}`;
  }

  /** The answer to a request under `/login/oauth/`, or undefined for any other path. */
  answer(method: string, url: URL, raw: Buffer, contentType: string | undefined): Reply | undefined {
    if (url.pathname === '/login/oauth/authorize' && method === 'GET')
      return this.#authorizePage(url.searchParams);
    if (url.pathname === '/login/oauth/authorize' && method === 'POST')
      return this.#authorize(form(raw, contentType));
    if (url.pathname === '/login/oauth/access_token' && method === 'POST')
      return this.#exchange(form(raw, contentType));
    return undefined;
  }

  #authorizePage(q: URLSearchParams): Reply {
    if (q.get('client_id') !== this.clientId)
      return page('<h1>The client id is not this App&#39;s</h1>', 404);
    const hidden = ['client_id', 'redirect_uri', 'state', 'code_challenge', 'code_challenge_method']
      .map((k) => `<input type="hidden" name="${k}" value="${escapeText(q.get(k) ?? '')}">`)
      .join('');
    return page(
      `<h1>Authorize ${escapeText(this.state.app.name)}</h1><form method="post" action="/login/oauth/authorize">${hidden}<label for="login">Sign in as</label> <input id="login" name="login" autocomplete="username"> <button type="submit">Authorize</button></form>`,
    );
  }

  #authorize(f: URLSearchParams): Reply {
    const login = f.get('login') ?? '';
    const redirect = f.get('redirect_uri') ?? '';
    if (
      f.get('client_id') !== this.clientId ||
      !/^https?:\/\//.test(redirect) ||
      !this.state.users.has(login.toLowerCase())
    )
      return page('<h1>Cannot authorize</h1>', 400);
    const code = randomBytes(10).toString('hex');
    const challenge = f.get('code_challenge');
    const method = f.get('code_challenge_method');
    this.#codes.set(code, {
      login: this.state.user(login).login,
      clientId: this.clientId,
      redirectUri: redirect,
      ...(challenge ? { challenge } : {}),
      ...(method ? { method } : {}),
    });
    const to = new URL(redirect);
    to.searchParams.set('code', code);
    if (f.get('state')) to.searchParams.set('state', f.get('state')!);
    return { status: 302, headers: { location: to.toString() } };
  }

  #exchange(f: URLSearchParams): Reply {
    const fail = (error: string, error_description: string): Reply => ({
      status: 200,
      body: { error, error_description },
    });
    const code = f.get('code') ?? '';
    const grant = this.#codes.get(code);
    this.#codes.delete(code);
    if (!grant) return fail('bad_verification_code', 'The code passed is incorrect or expired.');
    if (f.get('client_id') !== grant.clientId || f.get('client_secret') !== clientSecretOf(grant.clientId))
      return fail('incorrect_client_credentials', 'The client_id and/or client_secret passed are incorrect.');
    if (f.get('redirect_uri') && f.get('redirect_uri') !== grant.redirectUri)
      return fail(
        'redirect_uri_mismatch',
        'The redirect_uri MUST match the registered callback URL for this application.',
      );
    if (grant.challenge) {
      const verifier = f.get('code_verifier') ?? '';
      const made = createHash('sha256').update(verifier).digest('base64url');
      if (grant.method !== 'S256' || made !== grant.challenge)
        return fail('invalid_grant', 'The code_verifier does not match the code_challenge.');
    }
    const token = `ghu_${randomBytes(18).toString('hex')}`;
    this.state.tokens.set(token, grant.login);
    return {
      status: 200,
      body: { access_token: token, token_type: 'bearer', scope: '', expires_in: 28800 },
    };
  }
}

/** A form-encoded or JSON body as parameters. */
function form(raw: Buffer, contentType: string | undefined): URLSearchParams {
  const text = raw.toString('utf8');
  if (contentType?.includes('json')) {
    const o = JSON.parse(text || '{}') as Record<string, unknown>;
    return new URLSearchParams(Object.entries(o).map(([k, v]) => [k, String(v)]));
  }
  return new URLSearchParams(text);
}
