/**
 * The line shown once on the page after a form was carried out ("Done: …"): the form's answer is a redirect, and the
 * page the browser then asks for shows it. Where it is kept between the two is the face's choice: in this process
 * (`interlock ui`, one process), or in a short-lived sealed cookie that any of the App's replicas opens
 * (src/app/page/notice-cookie.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Viewer } from './backend.js';

export interface Notice {
  ok: boolean;
  text: string;
}

export interface NoticeKeeper {
  /** Keeps the notice for the viewer's next page (on the redirect's answer, before it is written). */
  give(viewer: Viewer, notice: Notice, res: ServerResponse): void;
  /** The viewer's notice, once: it is forgotten as it is taken (on the page's answer, before it is written). */
  take(viewer: Viewer, req: IncomingMessage, res: ServerResponse): Notice | undefined;
}

/** Notices kept in this process, by the viewer's CSRF token: for a face that is one process. */
export class MemoryNotices implements NoticeKeeper {
  readonly #kept = new Map<string, Notice>();

  give(viewer: Viewer, notice: Notice): void {
    this.#kept.set(viewer.csrf, notice);
  }

  take(viewer: Viewer): Notice | undefined {
    const n = this.#kept.get(viewer.csrf);
    this.#kept.delete(viewer.csrf);
    return n;
  }
}
