/**
 * How a logout ends a login everywhere although no replica keeps sessions: the user access token the sealed
 * cookie carries is revoked at GitHub (`DELETE /applications/{client_id}/token`), and every replica checks a
 * session's token with GitHub (`GET /user`) at most once a minute. A copy of the cookie kept after the logout
 * opens the page for at most that minute on a replica that checked it just before, then never again.
 */
import { createHash } from 'node:crypto';

/** How long a replica trusts a token it checked with GitHub. */
const RECHECK_MS = 60_000;
/** Tokens a replica remembers having checked; past it the oldest are forgotten (and checked again). */
const MAX_CHECKED = 10_000;

interface RevocationConfig {
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
}

const digest = (token: string) => createHash('sha256').update(token).digest('base64url');

/**
 * Revokes the token at GitHub. Returns undefined when GitHub confirmed it (204, or 404: already gone), else what
 * went wrong, for the logged-out page to say.
 */
export async function revokeToken(c: RevocationConfig, token: string): Promise<string | undefined> {
  try {
    const r = await fetch(`${c.apiUrl}/applications/${encodeURIComponent(c.clientId)}/token`, {
      method: 'DELETE',
      headers: {
        accept: 'application/vnd.github+json',
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64')}`,
      },
      body: JSON.stringify({ access_token: token }),
      signal: AbortSignal.timeout(c.timeoutMs),
    });
    await r.arrayBuffer().catch(() => undefined);
    return r.status === 204 || r.status === 404 ? undefined : `GitHub answered ${r.status}`;
  } catch (e) {
    return (e as Error).name === 'TimeoutError' ? 'GitHub did not answer in time' : (e as Error).message;
  }
}

/** Whether a session's token still works, asked of GitHub at most once a minute per token and replica. */
export class TokenChecks {
  readonly #checked = new Map<string, number>();

  constructor(
    private readonly c: RevocationConfig,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * False only when GitHub says the token is bad (401) or belongs to someone else: GitHub being slow or down
   * ends nobody's login (the page's own reads then fail and say so).
   */
  async valid(token: string, login: string): Promise<boolean> {
    const hash = digest(token);
    const at = this.#checked.get(hash);
    const now = this.clock();
    if (at !== undefined && now - at < RECHECK_MS) return true;
    let r: Response;
    try {
      r = await fetch(`${this.c.apiUrl}/user`, {
        headers: { accept: 'application/vnd.github+json', authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(this.c.timeoutMs),
      });
    } catch {
      return true;
    }
    const body = (await r.json().catch(() => ({}))) as { login?: unknown };
    if (r.status === 401) return this.#forget(hash);
    if (!r.ok) return true;
    if (typeof body.login === 'string' && body.login.toLowerCase() !== login.toLowerCase())
      return this.#forget(hash);
    this.#checked.delete(hash);
    this.#checked.set(hash, now);
    if (this.#checked.size > MAX_CHECKED) this.#checked.delete(this.#checked.keys().next().value!);
    return true;
  }

  /** Counts what a replica holds, for the figures. */
  get size(): number {
    return this.#checked.size;
  }

  /** Forgets a token this replica checked (its logout revoked it). */
  forget(token: string): void {
    this.#checked.delete(digest(token));
  }

  #forget(hash: string): false {
    this.#checked.delete(hash);
    return false;
  }
}
