/**
 * The maintainers' page over HTTP, for both faces (the App behind a GitHub login, `interlock ui` on loopback):
 * `GET <base>/` (waiting for people, filters in the query), `GET <base>/run?repo=&run=` (one run) and
 * `POST <base>/act` (one form). Every POST must come from the page's own origin (`Origin`, `Sec-Fetch-Site`)
 * and carry the session's CSRF token; a person who may not act in the repository gets 403 whatever they post.
 * Pages are sent with a strict Content-Security-Policy and never cached.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { refreshScript } from '../../render/page/layout.js';
import { runPage } from '../../render/page/run-page.js';
import { type WaitingRow, waitingRows } from '../../render/page/waiting-model.js';
import { type WaitingView, waitingPage } from '../../render/page/waiting-page.js';
import { PAGE_ACTIONS, type PageActionKind } from '../page-action.js';
import type { PageBackend, PageForm, Viewer } from './backend.js';
import { MemoryNotices, type Notice, type NoticeKeeper } from './notices.js';

interface PageServerOptions {
  /** The path prefix (`/interlock`, or `/t/<token>`), without a trailing slash. */
  base: string;
  /** The page's own origin (`https://interlock.example.com`): POSTs from elsewhere are refused. */
  origin: string;
  backend: PageBackend;
  /** The person of this request (their session), or undefined. */
  viewer(req: IncomingMessage): Viewer | undefined;
  /** Answers a request without a session (a redirect to the login). */
  anonymous(req: IncomingMessage, res: ServerResponse): void;
  refreshSeconds?: number;
  now?: () => string;
  /** Where the "Done: …" line waits for the page after a form (default: in this process). */
  notices?: NoticeKeeper;
}

const MAX_FORM_BYTES = 64 * 1024;
const FORM_ID = /^[A-Za-z0-9-]{1,100}$/;

/** The Content-Security-Policy of every page: nothing but its own style, its one script, and posts to itself. */
function pageCsp(refreshSeconds?: number): string {
  const script = refreshSeconds
    ? `'sha256-${createHash('sha256').update(refreshScript(refreshSeconds)).digest('base64')}'`
    : "'none'";
  return `default-src 'none'; style-src 'unsafe-inline'; script-src ${script}; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;
}

function send(
  res: ServerResponse,
  status: number,
  body: string,
  csp: string,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'cache-control': 'no-store',
    ...extra,
  });
  res.end(body);
}

function plain(res: ServerResponse, status: number, text: string): void {
  res
    .writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
    .end(`${text}\n`);
}

/** The request's body as form fields, bounded. */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** Why a POST is refused as coming from another site, or undefined. */
export function crossSite(req: IncomingMessage, origin: string): string | undefined {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin' && site !== 'none')
    return `refused: Sec-Fetch-Site says ${site}`;
  const from = req.headers.origin;
  if (typeof from === 'string' && from !== origin)
    return `refused: the form came from ${from}, not ${origin}`;
  return undefined;
}

export function sameToken(a: string | null | undefined, b: string): boolean {
  if (!a) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The form's fields, or why they do not make a form. */
function parseForm(f: URLSearchParams): PageForm | string {
  const action = f.get('action') as PageActionKind;
  const waits = f.get('waits');
  const attempt = Number(f.get('attempt'));
  const formId = f.get('form_id') ?? '';
  const need = ['repo', 'run', 'node', 'graph_hash'].find((k) => !f.get(k));
  if (need) return `the form has no ${need}`;
  if (!PAGE_ACTIONS.includes(action)) return `"${action}" is not an action of the page`;
  if (waits !== 'gate' && waits !== 'held' && waits !== 'escalated')
    return 'the form does not say why the node waits';
  if (!Number.isInteger(attempt) || attempt < 0) return 'the form has no attempt';
  if (!FORM_ID.test(formId)) return 'the form has no id';
  const text = f.get(action === 'settle' ? 'note' : action === 'fail-run' ? 'reason' : 'guidance') ?? '';
  return {
    repo: f.get('repo')!,
    runId: f.get('run')!,
    node: f.get('node')!,
    waits,
    attempt,
    graphHash: f.get('graph_hash')!,
    action,
    text,
    formId,
  };
}

/** A row standing for a form whose node no longer waits (the rules still decide who may act). */
function rowOfForm(form: PageForm): WaitingRow {
  return {
    repo: form.repo,
    runId: form.runId,
    graphName: '',
    graphHash: form.graphHash,
    node: form.node,
    kind: form.waits,
    why: '',
    attempt: form.attempt,
    since: '',
    approvals: { have: [], required: 1 },
    policy: '',
    commands: [],
    commandsFace: 'comment',
  };
}

/** The page's routes; `handle` answers a request under `base` and says whether it did. */
export class PageServer {
  readonly #csp: string;
  readonly #now: () => string;
  readonly #notices: NoticeKeeper;

  constructor(private readonly o: PageServerOptions) {
    this.#notices = o.notices ?? new MemoryNotices();
    this.#csp = pageCsp(o.refreshSeconds);
    this.#now = o.now ?? (() => new Date().toISOString());
  }

  #frame(viewer: Viewer, title: string) {
    return {
      title,
      base: this.o.base,
      csrf: viewer.csrf,
      ...(viewer.login ? { user: viewer.login } : {}),
      ...(this.o.refreshSeconds ? { refreshSeconds: this.o.refreshSeconds } : {}),
    };
  }

  #view(viewer: Viewer, title: string, repos: string[], rows: WaitingRow[]): Omit<WaitingView, 'may'> {
    return {
      frame: this.#frame(viewer, title),
      now: this.#now(),
      repos,
      rows,
      filter: { mine: false },
      formId: randomBytes(9).toString('base64url').replace(/_/g, '-'),
      ...(this.o.backend.webUrl ? { webUrl: this.o.backend.webUrl } : {}),
    };
  }

  async list(viewer: Viewer, query: URLSearchParams, notice?: Notice): Promise<string> {
    const seen = await this.o.backend.see(viewer);
    const rows = waitingRows(seen.runs);
    const may = await this.o.backend.mayAct(viewer, rows);
    const repo = query.get('repo') ?? '';
    const base = this.#view(viewer, 'Waiting for people', seen.repos, rows);
    return waitingPage({
      ...base,
      frame: { ...base.frame, ...(notice ? { notice } : {}) },
      may,
      filter: { ...(repo ? { repo } : {}), mine: query.get('mine') === '1' },
      problems: seen.problems,
    });
  }

  async #one(viewer: Viewer, query: URLSearchParams, res: ServerResponse): Promise<void> {
    const run = await this.o.backend.run(viewer, query.get('repo') ?? '', query.get('run') ?? '');
    if (!run)
      return send(
        res,
        404,
        '<!doctype html><html lang="en"><title>No such run</title><p>No such run.</p></html>',
        this.#csp,
      );
    const rows = waitingRows([run]);
    const view = {
      ...this.#view(viewer, 'run', [run.repo], rows),
      may: await this.o.backend.mayAct(viewer, rows),
    };
    send(res, 200, runPage(run, view), this.#csp);
  }

  async #act(viewer: Viewer, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { backend, origin, base } = this.o;
    const cross = crossSite(req, origin);
    if (cross) return plain(res, 403, cross);
    const fields = await readForm(req);
    if (!fields) return plain(res, 413, 'the form is too large');
    if (!sameToken(fields.get('csrf'), viewer.csrf))
      return plain(res, 403, 'refused: the form carries no valid CSRF token (reload the page)');
    const form = parseForm(fields);
    if (typeof form === 'string') return plain(res, 400, form);
    const seen = await backend.see(viewer);
    if (!seen.repos.includes(form.repo)) return plain(res, 403, `refused: you cannot see ${form.repo}`);
    const row =
      waitingRows(seen.runs).find(
        (r) => r.repo === form.repo && r.runId === form.runId && r.node === form.node,
      ) ?? rowOfForm(form);
    const may = (await backend.mayAct(viewer, [row]))(row);
    if (!may.ok && may.readOnly) return plain(res, 403, `refused: ${may.reason}`);
    const outcome = await backend.act(
      viewer,
      form,
      `${origin}${base}/act#${viewer.login ?? 'local'}-${form.formId}`,
    );
    backend.forget?.(form.repo);
    if (outcome.kind === 'done' || outcome.kind === 'ignored') {
      const text =
        outcome.kind === 'done'
          ? `Done: ${outcome.what}${outcome.workflowRun ? ` (workflow run ${outcome.workflowRun})` : ''}.`
          : 'Already done: this form was submitted before, and counts once.';
      this.#notices.give(viewer, { ok: true, text }, res);
      res.writeHead(303, { location: `${base}/`, 'cache-control': 'no-store' }).end();
      return;
    }
    const page = await this.list(viewer, new URLSearchParams(), {
      ok: false,
      text: `Not done: ${outcome.why}`,
    });
    send(res, outcome.kind === 'failed' ? 502 : 409, page, this.#csp);
  }

  /** Answers a request under `base`; false when the path is not the page's. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://page.invalid');
    const { base } = this.o;
    if (url.pathname !== base && !url.pathname.startsWith(`${base}/`)) return false;
    const sub = url.pathname.slice(base.length) || '/';
    if (!['/', '/run', '/act'].includes(sub)) return false;
    const viewer = this.o.viewer(req);
    if (!viewer) {
      this.o.anonymous(req, res);
      return true;
    }
    try {
      if (req.method === 'POST' && sub === '/act') await this.#act(viewer, req, res);
      else if (req.method !== 'GET' || sub === '/act') plain(res, 405, 'method not allowed');
      else if (sub === '/run') await this.#one(viewer, url.searchParams, res);
      else {
        const page = await this.list(viewer, url.searchParams, this.#notices.take(viewer, req, res));
        send(res, 200, page, this.#csp);
      }
    } catch (e) {
      const why = (e as Error).message;
      if (res.headersSent) return true;
      if (req.method === 'POST')
        plain(
          res,
          502,
          `the form may not have been carried out: GitHub failed (${why}). Reload the page to see what holds; the same form sent again counts once`,
        );
      else
        plain(
          res,
          502,
          `the page could not be made: GitHub failed (${why}). Nothing was changed: reload the page`,
        );
    }
    return true;
  }
}
