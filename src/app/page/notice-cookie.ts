/**
 * The "Done: …" line after a page form, carried by the browser (issue 50): the form's redirect sets a sealed cookie
 * (`__Host-interlock-notice`, the session's sealing under `INTERLOCK_PAGE_KEYS`, a minute's life), and the page the
 * browser asks for next, on whichever replica, shows it and clears it. It opens only under the login it was given
 * to (the session's CSRF token is sealed in it) and only within its life.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Viewer } from '../../approvals/page/backend.js';
import type { Notice, NoticeKeeper } from '../../approvals/page/notices.js';
import { cookie, type Sealer } from './sessions.js';

/** How long a notice waits for the page that shows it. */
const NOTICE_LIFE_MS = 60_000;

/** Adds a `Set-Cookie` to the answer, keeping those already set. */
function addCookie(res: ServerResponse, value: string): void {
  const had = res.getHeader('set-cookie');
  const list = had === undefined ? [] : Array.isArray(had) ? had : [String(had)];
  res.setHeader('set-cookie', [...list, value]);
}

export class NoticeCookie implements NoticeKeeper {
  constructor(
    /** `__Host-interlock-notice` over HTTPS; `interlock-notice` on plain-HTTP localhost. */
    readonly name: string,
    private readonly secure: boolean,
    private readonly sealer: Sealer,
    private readonly clock: () => number = Date.now,
  ) {}

  give(viewer: Viewer, notice: Notice, res: ServerResponse): void {
    const sealed = this.sealer.seal('notice', {
      csrf: viewer.csrf,
      ok: notice.ok,
      text: notice.text,
      expires: this.clock() + NOTICE_LIFE_MS,
    });
    addCookie(res, this.#cookie(sealed, NOTICE_LIFE_MS));
  }

  take(viewer: Viewer, req: IncomingMessage, res: ServerResponse): Notice | undefined {
    const raw = cookie(req, this.name);
    if (raw === undefined) return undefined;
    addCookie(res, this.#cookie('', 0));
    const n = this.sealer.open('notice', raw) as
      | { csrf?: unknown; ok?: unknown; text?: unknown; expires?: unknown }
      | undefined;
    if (typeof n?.text !== 'string' || typeof n.ok !== 'boolean' || typeof n.expires !== 'number')
      return undefined;
    return n.csrf === viewer.csrf && n.expires > this.clock() ? { ok: n.ok, text: n.text } : undefined;
  }

  #cookie(value: string, lifeMs: number): string {
    const secure = this.secure ? '; Secure' : '';
    return `${this.name}=${value}; Path=/; HttpOnly${secure}; SameSite=Lax; Max-Age=${Math.floor(lifeMs / 1000)}`;
  }
}
