/**
 * The maintainers' page as the App serves it (issue 37), against the local GitHub: two repositories of one
 * installation (acme/widgets with a held node, acme/gadgets with an escalated one, both written by the git
 * store's own writer), the App's server with the page on (`INTERLOCK_PAGE_URL`), and a login through the local
 * GitHub's authorize page without a browser.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { type RunningApp, startServer } from '../../src/app/server.js';
import { NEEDS_HUMAN_LABEL } from '../../src/render/words.js';
import { clientSecretOf } from '../support/github/oauth.js';
import type { RepoState } from '../support/github-server.js';
import { type GitLayout, seedGitJournal } from '../support/seed-journal.js';
import {
  appServerEnv,
  buildJournal,
  CONFIG,
  DEFAULT_APPROVALS,
  GRAPH_PATH,
  GRAPH_TEXT,
  PEOPLE,
  quietOctokit,
  startWorld,
  WORKFLOW,
  type World,
} from './world.js';

export interface PageWorld {
  world: World;
  gadgets: RepoState;
  app: RunningApp;
  /** `http://127.0.0.1:<port>`: the page's origin. */
  origin: string;
  /** The App's environment (a replica gets the same, with its own port and page URL). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** The key every page world's App seals its cookies with (replicas of one deployment share it). */
export const PAGE_KEY = randomBytes(32).toString('base64');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * `client: 'app'` gives the App the client users run (`appOctokit`: retries, deadlines, tuned by `env`); the
 * default is a quiet one that never retries. Both runs are written by the git store in `layout`: on their own
 * branches (what the bundled action writes today) unless the journal branch of before is asked for.
 * `widgetsRun: false` leaves acme/widgets without a run, for a test that starts its own there.
 */
export async function startPageWorld(
  env: Record<string, string> = {},
  client: 'quiet' | 'app' = 'quiet',
  opts: { layout?: GitLayout; widgetsRun?: boolean } = {},
): Promise<PageWorld> {
  const layout = opts.layout ?? 'run-branch';
  const world = await startWorld({ layout });
  if (opts.widgetsRun !== false) await world.seedRun();
  const gadgets = world.server.state.addRepo({
    owner: 'acme',
    name: 'gadgets',
    files: {
      'README.md': '# gadgets\n',
      [GRAPH_PATH]: GRAPH_TEXT,
      '.github/interlock.yml': CONFIG(DEFAULT_APPROVALS),
    },
    collaborators: { [PEOPLE.writer]: 'write', [PEOPLE.reader]: 'read' },
    labels: [NEEDS_HUMAN_LABEL],
    issues: [{ number: 2, title: '<script>alert("gadgets")</script> [link](https://evil.example)' }],
    workflows: [{ file: WORKFLOW, inputs: ['run-id'] }],
  });
  const j = buildJournal(world.graph, { runId: 'fix/issue-2', subject: 'issue-2', shape: 'escalated' });
  await seedGitJournal(world.server, 'acme/gadgets', j, layout);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const clientId = `Iv1.${world.server.state.app.slug}`;
  const appEnv = {
    ...appServerEnv(world, 'page-secret'),
    PORT: String(port),
    INTERLOCK_PAGE_URL: origin,
    GITHUB_CLIENT_ID: clientId,
    GITHUB_CLIENT_SECRET: clientSecretOf(clientId),
    GITHUB_WEB_URL: world.server.url,
    INTERLOCK_PAGE_KEYS: PAGE_KEY,
    ...env,
  };
  const app = await startServer(appEnv, client === 'quiet' ? { Octokit: quietOctokit() } : {});
  return {
    world,
    gadgets,
    app,
    origin,
    env: appEnv,
    close: async () => {
      await app.close();
      await world.close();
    },
  };
}

/**
 * Another replica of the same App on the same GitHub, as behind a load balancer: the same environment (the same
 * INTERLOCK_PAGE_KEYS and public INTERLOCK_PAGE_URL), its own port, which `origin` reaches directly (`port`: a
 * restart of a closed replica takes its port again). Closing it leaves the world running.
 */
export async function startReplica(pw: PageWorld, port?: number): Promise<PageWorld> {
  const p = port ?? (await freePort());
  const origin = `http://127.0.0.1:${p}`;
  const env = { ...pw.env, PORT: String(p) };
  const app = await startServer(env, { Octokit: quietOctokit() });
  return { ...pw, app, origin, env, close: () => app.close() };
}

/** A callback URL a browser lands on, and the login cookie the page set in that browser when the login began. */
export interface Callback {
  url: string;
  cookie: string;
}

/** The browser's part of a login (the page's redirect, GitHub's authorize form): where it lands, with its cookie. */
export async function authorizeAs(pw: PageWorld, login: string): Promise<Callback> {
  const start = await fetch(`${pw.origin}/interlock/login`, { redirect: 'manual' });
  const cookie = start.headers.get('set-cookie')?.split(';')[0] ?? '';
  const authorize = new URL(start.headers.get('location')!);
  const form = new URLSearchParams(authorize.searchParams);
  form.set('login', login);
  const granted = await fetch(`${pw.world.server.url}/login/oauth/authorize`, {
    method: 'POST',
    body: form,
    redirect: 'manual',
  });
  return { url: granted.headers.get('location')!, cookie };
}

/** The callback as the browser that began the login opens it (its login cookie sent). */
export function openCallback(cb: Callback): Promise<Response> {
  return fetch(cb.url, { headers: { cookie: cb.cookie }, redirect: 'manual' });
}

/** A person's session without a browser: the login, the authorize form, the callback; returns the cookie. */
export async function logIn(pw: PageWorld, login: string): Promise<string> {
  const done = await openCallback(await authorizeAs(pw, login));
  const cookie = done.headers.getSetCookie().find((c) => /^(__Host-)?interlock-session=./.test(c));
  if (done.status !== 303 || !cookie) throw new Error(`login failed: ${done.status} ${await done.text()}`);
  return cookie.split(';')[0]!;
}

/** The page's HTML for a session. */
export async function getPage(
  pw: PageWorld,
  cookie: string,
  path = '/interlock/',
): Promise<{ status: number; html: string }> {
  const r = await fetch(`${pw.origin}${path}`, { headers: { cookie }, redirect: 'manual' });
  return { status: r.status, html: await r.text() };
}

/** The fields of the form that does `action` on `node` of `repo`, as the page rendered them. */
export function formFields(html: string, repo: string, node: string, action: string): URLSearchParams {
  const forms = [...html.matchAll(/<form method="post" action="\/interlock\/act">([\s\S]*?)<\/form>/g)].map(
    (m) => m[1]!,
  );
  const fromHtml = (t: string) =>
    t
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&#96;/g, '`')
      .replace(/&amp;/g, '&');
  for (const f of forms) {
    const fields = new URLSearchParams();
    for (const m of f.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
      fields.set(m[1]!, fromHtml(m[2]!));
    if (fields.get('repo') === repo && fields.get('node') === node && fields.get('action') === action)
      return fields;
  }
  throw new Error(`no ${action} form for ${repo} ${node}`);
}

/** Posts a form as a browser on the page's own origin would. */
export function post(
  pw: PageWorld,
  cookie: string,
  fields: URLSearchParams,
  headers: Record<string, string> = {},
) {
  return fetch(`${pw.origin}/interlock/act`, {
    method: 'POST',
    body: fields,
    headers: { cookie, origin: pw.env.INTERLOCK_PAGE_URL!, 'sec-fetch-site': 'same-origin', ...headers },
    redirect: 'manual',
  });
}
