/**
 * The page's logins, kept in the browser, not on the server: a sealed cookie (`__Host-interlock-session`:
 * HttpOnly, Secure, SameSite=Lax, Path=/) holds the person's login, their user access token and a CSRF token,
 * encrypted and authenticated (AES-256-GCM) under a key from the environment (`INTERLOCK_PAGE_KEYS`). Any replica
 * that holds the key honours it, and a restart loses nothing. A login in progress is the same: its one-time
 * `state` and PKCE verifier are sealed in a second cookie set when the login starts, so a callback is honoured
 * only in the browser that began it (no login CSRF), and nothing pending is kept in memory.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export interface Session {
  login: string;
  token: string;
  csrf: string;
  /** When it was made and when it ends (ms since the epoch). */
  issued: number;
  expires: number;
}

const random = (bytes = 32) => randomBytes(bytes).toString('base64url');

/** How long a login in progress may take, from the page to GitHub and back. */
const LOGIN_LIFE_MS = 10 * 60_000;

/** PKCE (RFC 7636): a verifier and its S256 challenge. */
function pkce(): { verifier: string; challenge: string } {
  const verifier = random(32);
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * `INTERLOCK_PAGE_KEYS`: the current key first, then the ones still accepted (a rotation), comma-separated, each
 * 32 bytes in base64 (`openssl rand -base64 32`). Returns the keys, or why the text is not such a list.
 */
export function parsePageKeys(text: string): Buffer[] | string {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0)
    return 'INTERLOCK_PAGE_KEYS is empty: set it to a key made with `openssl rand -base64 32`';
  const keys: Buffer[] = [];
  for (const [i, p] of parts.entries()) {
    const k = /^[A-Za-z0-9+/_-]+={0,2}$/.test(p) ? Buffer.from(p, 'base64') : Buffer.alloc(0);
    if (k.length !== 32)
      return `INTERLOCK_PAGE_KEYS: key ${i + 1} is not 32 bytes of base64: make one with \`openssl rand -base64 32\``;
    keys.push(k);
  }
  return keys;
}

/** Authenticated encryption of small JSON values under the first key; any of the keys opens. */
export class Sealer {
  constructor(private readonly keys: readonly Buffer[]) {
    if (keys.length === 0) throw new Error('a sealer needs a key');
  }

  /** `purpose` is bound into the seal: a login cookie never opens as a session. */
  seal(purpose: string, value: unknown): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.keys[0]!, iv);
    c.setAAD(Buffer.from(purpose));
    const body = Buffer.concat([c.update(JSON.stringify(value), 'utf8'), c.final()]);
    return `v1.${Buffer.concat([iv, body, c.getAuthTag()]).toString('base64url')}`;
  }

  /** The value, or undefined for anything not sealed by one of the keys for this purpose. */
  open(purpose: string, text: string | undefined): unknown {
    if (!text?.startsWith('v1.') || text.length > 8192) return undefined;
    const raw = Buffer.from(text.slice(3), 'base64url');
    if (raw.length < 12 + 16 + 2) return undefined;
    for (const sealKey of this.keys) {
      try {
        const d = createDecipheriv('aes-256-gcm', sealKey, raw.subarray(0, 12));
        d.setAAD(Buffer.from(purpose));
        d.setAuthTag(raw.subarray(raw.length - 16));
        const plain = Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]);
        return JSON.parse(plain.toString('utf8')) as unknown;
      } catch {
        // Not this key (or not sealed at all): the next key, then nothing.
      }
    }
    return undefined;
  }
}

const isSession = (v: unknown): v is Session => {
  const s = v as Session;
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.login === 'string' &&
    typeof s.token === 'string' &&
    typeof s.csrf === 'string' &&
    typeof s.issued === 'number' &&
    typeof s.expires === 'number'
  );
};

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export class Sessions {
  /** The login cookie's name: `__Host-interlock-login` over HTTPS. */
  readonly loginCookieName: string;

  constructor(
    /** The cookie's name: `__Host-interlock-session` over HTTPS; `interlock-session` on plain-HTTP localhost. */
    readonly cookieName: string,
    private readonly secure: boolean,
    private readonly lifeMs: number,
    private readonly sealer: Sealer,
    private readonly clock: () => number = Date.now,
  ) {
    this.loginCookieName = cookieName.replace(/session$/, 'login');
  }

  /** Starts a login: its one-time state, the PKCE challenge, and the cookie that ties both to this browser. */
  beginLogin(): { state: string; challenge: string; cookie: string } {
    const state = random(24);
    const { verifier, challenge } = pkce();
    const sealed = this.sealer.seal('login', { state, verifier, expires: this.clock() + LOGIN_LIFE_MS });
    return { state, challenge, cookie: this.#cookie(this.loginCookieName, sealed, LOGIN_LIFE_MS) };
  }

  /**
   * The verifier of the login this browser began, if the callback's `state` is its state and it has not
   * expired; a callback opened in another browser (no login cookie, or another one) gives undefined.
   */
  takeLogin(req: IncomingMessage, state: string | null): string | undefined {
    if (!state) return undefined;
    const l = this.sealer.open('login', cookie(req, this.loginCookieName)) as
      | { state?: unknown; verifier?: unknown; expires?: unknown }
      | undefined;
    if (typeof l?.state !== 'string' || typeof l.verifier !== 'string' || typeof l.expires !== 'number')
      return undefined;
    return sameText(l.state, state) && l.expires > this.clock() ? l.verifier : undefined;
  }

  /** A new login's session and the cookie that carries it. */
  create(login: string, token: string): { session: Session; cookie: string } {
    const now = this.clock();
    const session: Session = { login, token, csrf: random(24), issued: now, expires: now + this.lifeMs };
    const sealed = this.sealer.seal('session', session);
    return { session, cookie: this.#cookie(this.cookieName, sealed, this.lifeMs) };
  }

  /** The session the request's cookie carries, while it lasts. */
  of(req: IncomingMessage): Session | undefined {
    const s = this.sealer.open('session', cookie(req, this.cookieName));
    return isSession(s) && s.expires > this.clock() ? s : undefined;
  }

  clearCookie(): string {
    return this.#cookie(this.cookieName, '', 0);
  }

  clearLoginCookie(): string {
    return this.#cookie(this.loginCookieName, '', 0);
  }

  #cookie(name: string, value: string, lifeMs: number): string {
    const secure = this.secure ? '; Secure' : '';
    return `${name}=${value}; Path=/; HttpOnly${secure}; SameSite=Lax; Max-Age=${Math.floor(lifeMs / 1000)}`;
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
