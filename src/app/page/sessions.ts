/**
 * The page's sessions, kept on the server: a random id in a cookie (`__Host-interlock-session`: HttpOnly, Secure,
 * SameSite=Lax, Path=/), the person's login, their user access token and a CSRF token, each expiring. Also the
 * one-time `state` of a login in progress with its PKCE verifier.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export interface Session {
  id: string;
  login: string;
  token: string;
  csrf: string;
  expires: number;
}

const random = (bytes = 32) => randomBytes(bytes).toString('base64url');

/** PKCE (RFC 7636): a verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = random(32);
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export class Sessions {
  readonly #sessions = new Map<string, Session>();
  readonly #logins = new Map<string, { verifier: string; expires: number }>();

  constructor(
    /** The cookie's name: `__Host-interlock-session` over HTTPS; `interlock-session` on plain-HTTP localhost. */
    readonly cookieName: string,
    private readonly secure: boolean,
    private readonly lifeMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Starts a login: its one-time state and the verifier kept for the callback (10 minutes). */
  beginLogin(): { state: string; challenge: string } {
    this.#sweep();
    const state = random(24);
    const { verifier, challenge } = pkce();
    this.#logins.set(state, { verifier, expires: this.clock() + 10 * 60_000 });
    return { state, challenge };
  }

  /** The verifier of a login's state, once: a state used or expired gives undefined. */
  takeLogin(state: string | null): string | undefined {
    if (!state) return undefined;
    const l = this.#logins.get(state);
    this.#logins.delete(state);
    return l && l.expires > this.clock() ? l.verifier : undefined;
  }

  create(login: string, token: string): Session {
    const s: Session = {
      id: random(32),
      login,
      token,
      csrf: random(24),
      expires: this.clock() + this.lifeMs,
    };
    this.#sessions.set(s.id, s);
    return s;
  }

  /** The session the request's cookie names, while it lasts. */
  of(req: IncomingMessage): Session | undefined {
    const id = cookie(req, this.cookieName);
    const s = id ? this.#sessions.get(id) : undefined;
    if (s && s.expires <= this.clock()) {
      this.#sessions.delete(s.id);
      return undefined;
    }
    return s;
  }

  end(id: string): void {
    this.#sessions.delete(id);
  }

  setCookie(s: Session): string {
    const secure = this.secure ? '; Secure' : '';
    return `${this.cookieName}=${s.id}; Path=/; HttpOnly${secure}; SameSite=Lax; Max-Age=${Math.floor(this.lifeMs / 1000)}`;
  }

  clearCookie(): string {
    const secure = this.secure ? '; Secure' : '';
    return `${this.cookieName}=; Path=/; HttpOnly${secure}; SameSite=Lax; Max-Age=0`;
  }

  #sweep(): void {
    const now = this.clock();
    for (const [k, l] of this.#logins) if (l.expires <= now) this.#logins.delete(k);
    for (const [k, s] of this.#sessions) if (s.expires <= now) this.#sessions.delete(k);
  }
}

/** One cookie's value from the request. */
export function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}
