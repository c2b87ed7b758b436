/**
 * GitHub API faults at the maintainers' page's requests (issue 37's page in the App's server) and at setup's
 * manifest conversion: the login's token exchange and `GET /user`, the person's installations and their
 * repositories, the runs read with the installation's token, and an approval from the page. Each flow runs in the
 * App's server as users run it (its own client: retries, deadlines), against the local GitHub; a normal run of
 * each is recorded first, then each request kind it makes is broken. What must hold: the page answers with a clear
 * error (what failed, and what to do), nothing is lost or done twice, and once GitHub heals the same action works
 * (an approval's form sent again counts once).
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunningApp, startServer } from '../../src/app/server.js';
import { startSetupServer } from '../../src/app/setup.js';
import {
  authorizeAs,
  type Callback,
  formFields,
  getPage,
  logIn,
  openCallback,
  type PageWorld,
  post,
  startPageWorld,
} from '../app/page-world.js';
import { approvalDelivery, PEOPLE } from '../app/world.js';
import { FAULT_NAMES, FAULTS } from './api-faults.js';
import { Problems, pool } from './support.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The App's client, tuned small: a request's deadline 1 s, a retry's second 5 ms, writes not spaced. */
const TUNING = {
  INTERLOCK_REQUEST_TIMEOUT_MS: '1000',
  INTERLOCK_RETRY_BASE_MS: '5',
  INTERLOCK_WRITE_INTERVAL_MS: '0',
};

export const PAGE_FLOWS = [
  'page: login',
  'page: the list',
  'page: an approval',
  'page: logout',
  'app: sweep of missed deliveries',
  'setup: manifest conversion',
] as const;
export type PageFlow = (typeof PAGE_FLOWS)[number];

interface Prepared {
  pw: PageWorld;
  cookie?: string;
  callback?: Callback;
  fields?: URLSearchParams;
  setup?: { app: RunningApp; dir: string; base: string; state: string };
  /** The sweep's flow: the delivery GitHub could not make, and the replicas started to sweep. */
  missed?: string;
  sweepers?: RunningApp[];
}

interface Answer {
  ok: boolean;
  status: number;
  text: string;
  cookie?: string | null;
}

/** What the person is told when the flow did not go through: what failed, and what to do. */
const CLEAR: Record<PageFlow, RegExp> = {
  'page: login':
    /the login did not complete: .*GitHub.*\. No session was made: log in again at \/interlock\/login/,
  'page: the list': /the page could not be made: GitHub failed \(.+\)\. Nothing was changed: reload the page/,
  'page: an approval':
    /Not done: .+|the form may not have been carried out: GitHub failed \(.+\)\. Reload the page to see what holds; the same form sent again counts once/,
  // A logout always ends the login in the browser; GitHub's failure is said on the logged-out page (`healed`).
  'page: logout': /^$/,
  // A sweep answers nobody: its failure is logged, and the next sweep (the next start, the schedule) asks again.
  'app: sweep of missed deliveries': /^the sweep asked for nothing: .+$/,
  'setup: manifest conversion':
    /Registration failed: GitHub.*manifest conversion.*GitHub may have made the App already: delete it at .+\/settings\/apps .*start again from \//,
};

async function startSetup(pw: PageWorld): Promise<NonNullable<Prepared['setup']>> {
  const dir = mkdtempSync(join(tmpdir(), 'interlock-setup-faults-'));
  cpSync(join(ROOT, 'app.yml'), join(dir, 'app.yml'));
  const app = await startSetupServer(
    { PORT: '0', HOST: '127.0.0.1', GITHUB_API_URL: pw.world.server.url, ...TUNING },
    { dir, log: () => {} },
  );
  const base = app.url.replace(/\/$/, '');
  const state = /state=([0-9a-f]+)/.exec(await (await fetch(`${base}/`)).text())![1]!;
  return { app, dir, base, state };
}

/** A fresh world at the moment before the flow. */
async function prepare(flow: PageFlow): Promise<Prepared> {
  const pw = await startPageWorld(TUNING, 'app');
  const p: Prepared = { pw };
  if (flow === 'page: login') p.callback = await authorizeAs(pw, PEOPLE.writer);
  if (flow === 'page: the list' || flow === 'page: an approval') p.cookie = await logIn(pw, PEOPLE.writer);
  if (flow === 'page: an approval')
    p.fields = formFields((await getPage(pw, p.cookie!)).html, 'acme/widgets', 'deploy', 'approve-rerun');
  if (flow === 'setup: manifest conversion') p.setup = await startSetup(pw);
  if (flow === 'page: logout') {
    p.cookie = await logIn(pw, PEOPLE.writer);
    p.fields = new URLSearchParams({
      csrf: /name="csrf" value="([^"]+)"/.exec((await getPage(pw, p.cookie)).html)![1]!,
    });
  }
  if (flow === 'app: sweep of missed deliveries') {
    // The App is down while the writer comments: GitHub records the delivery as failed.
    await pw.app.close();
    const hooks = pw.world.server.state.webhooks;
    hooks.target = { url: `${pw.origin}/api/github/webhooks`, secret: pw.env.WEBHOOK_SECRET! };
    p.missed = (await hooks.deliver('issue_comment', JSON.parse(approvalDelivery(pw.world).body))).guid;
    p.sweepers = [];
  }
  return p;
}

/** A replica of the page world's App on its port, sweeping at start; the answer is what its first sweep did. */
async function sweep(p: Prepared): Promise<Answer> {
  // A restart: the replica before (if any) stops, a new one starts on the same port.
  for (const before of p.sweepers!.splice(0)) await before.close();
  const app = await startServer({ ...p.pw.env, INTERLOCK_REDELIVER: 'on' });
  p.sweepers!.push(app);
  const r = await app.swept;
  await p.pw.world.server.state.webhooks.settled();
  const asked = r?.asked.includes(p.missed!) ?? false;
  const text = asked
    ? 'asked'
    : `the sweep asked for nothing: ${r ? `${r.listed} read, ${r.asked.length} asked` : 'it failed (logged)'}`;
  return { ok: asked, status: asked ? 200 : 500, text };
}

let codes = 0;

async function run(flow: PageFlow, p: Prepared): Promise<Answer> {
  if (flow === 'page: login') {
    const r = await openCallback(p.callback!);
    const cookie = r.headers.getSetCookie().find((c) => c.includes('interlock-session=v1.')) ?? null;
    return { ok: r.status === 303 && !!cookie, status: r.status, text: await r.text(), cookie };
  }
  if (flow === 'page: the list') {
    const r = await getPage(p.pw, p.cookie!);
    return { ok: r.status === 200 && r.html.includes('acme/widgets'), status: r.status, text: r.html };
  }
  if (flow === 'page: an approval') {
    const r = await post(p.pw, p.cookie!, p.fields!);
    return { ok: r.status === 303, status: r.status, text: await r.text() };
  }
  if (flow === 'page: logout') {
    const r = await fetch(`${p.pw.origin}/interlock/logout`, {
      method: 'POST',
      body: p.fields!,
      headers: { cookie: p.cookie!, origin: p.pw.env.INTERLOCK_PAGE_URL! },
      redirect: 'manual',
    });
    const cleared = r.headers.get('set-cookie')?.startsWith('interlock-session=;') ?? false;
    const to = r.headers.get('location') ?? '';
    return {
      ok: r.status === 303 && cleared && to.startsWith('/interlock/logged-out'),
      status: r.status,
      text: to,
    };
  }
  if (flow === 'app: sweep of missed deliveries') return sweep(p);
  const s = p.setup!;
  const r = await fetch(`${s.base}/setup/done?code=c${++codes}&state=${s.state}`);
  return { ok: r.status === 200, status: r.status, text: await r.text() };
}

/** Nothing lost, nothing twice: the approval is journaled once, dispatched once, said once. */
function checkApproval(pw: PageWorld, problems: Problems): void {
  const approvals = pw.world.journal().events.filter((e) => e.type === 'RerunApproved');
  problems.check(approvals.length === 1, `${approvals.length} approvals in the journal, not 1`);
  problems.check(
    pw.world.repo.dispatches.length === 1,
    `${pw.world.repo.dispatches.length} workflow dispatches, not 1`,
  );
  const said = pw.world.repo.commentsOn(1).filter((c) => c.body.includes('from the interlock page by @bob'));
  problems.check(said.length === 1, `${said.length} comments saying the approval, not 1`);
}

/** After GitHub heals: the same action goes through, and nothing was lost or done twice. */
async function healed(flow: PageFlow, p: Prepared, first: Answer, problems: Problems): Promise<void> {
  if (flow === 'page: login') {
    if (!first.ok)
      await logIn(p.pw, PEOPLE.writer).catch((e: Error) => problems.add(`no login after: ${e.message}`));
    return;
  }
  if (flow === 'page: logout') {
    // Revoked at GitHub: the cookie opens nothing. Not confirmed: the logged-out page says to revoke it by hand.
    if (first.text === '/interlock/logged-out')
      problems.check(
        (await getPage(p.pw, p.cookie!)).status === 303,
        'the cookie opens the page after a logout',
      );
    else {
      const page = await getPage(p.pw, '', first.text);
      problems.check(
        /GitHub did not confirm that its token was revoked.*Revoke it now/.test(page.html),
        () => `the logged-out page does not say the token may live on: ${page.html.slice(0, 300)}`,
      );
    }
    return;
  }
  if (flow === 'app: sweep of missed deliveries') {
    // GitHub healed: the next sweep (the next start) asks if it must, and the comment is applied once.
    if (!first.ok) await sweep(p);
    const world = p.pw.world;
    const end = Date.now() + 10_000;
    while (!world.journal().events.some((e) => e.type === 'RerunApproved') && Date.now() < end)
      await new Promise((r) => setTimeout(r, 50));
    await world.server.state.webhooks.settled();
    // Applied once, or (the redelivered command itself met a fault it does not retry) the person was told to
    // post it again: a sweep asks for a delivery once, and a comment is never lost silently.
    const approvals = world.journal().events.filter((e) => e.type === 'RerunApproved');
    const told = world.repo
      .commentsOn(1)
      .some(
        (c) =>
          c.body.includes('interlock could not finish this command') &&
          c.body.includes('post the command again'),
      );
    problems.check(
      approvals.length === 1 || (approvals.length === 0 && told),
      `${approvals.length} approvals after the sweeps, and ${told ? '' : 'no '}reply telling to post again`,
    );
    problems.check(
      world.repo.dispatches.length === approvals.length,
      `${world.repo.dispatches.length} dispatches`,
    );
    const asks = world.server.state.webhooks.deliveries.filter((d) => d.guid === p.missed && d.redelivery);
    problems.check(asks.length === 1, `${asks.length} redeliveries asked, not 1`);
    return;
  }
  if (flow === 'page: the list' || flow === 'page: an approval') {
    if (flow === 'page: an approval' && !first.ok) {
      const again = await run(flow, p);
      problems.check(
        again.ok,
        () => `the form sent again after the fault: ${again.status} ${again.text.slice(0, 300)}`,
      );
    }
    const page = await run('page: the list', p);
    problems.check(page.ok, () => `the page after the fault: ${page.status} ${page.text.slice(0, 300)}`);
    if (flow === 'page: an approval') checkApproval(p.pw, problems);
    return;
  }
  const env = join(p.setup!.dir, '.env');
  problems.check(
    first.ok === existsSync(env),
    `.env ${existsSync(env) ? 'written' : 'missing'} after ${first.status}`,
  );
  if (!first.ok) {
    const again = await run(flow, p);
    problems.check(
      again.ok && existsSync(env),
      `starting again did not register: ${again.status} ${again.text}`,
    );
  }
}

export interface PageCase {
  flow: PageFlow;
  kind: string;
  fault: string;
}

export interface PageResult {
  id: string;
  outcome: 'recovered' | 'error shown' | 'broken';
  problems: string[];
  message?: string;
}

export const pageCaseId = (c: PageCase) => `${c.flow} · ${c.kind} · ${c.fault}`;

async function closeAll(p: Prepared): Promise<void> {
  for (const app of p.sweepers ?? []) await app.close();
  if (p.setup) {
    await p.setup.app.close();
    rmSync(p.setup.dir, { recursive: true, force: true });
  }
  await p.pw.close();
}

/** The request kinds the App's server (or setup) makes in a normal run of the flow, in order. */
export async function recordPageFlow(flow: PageFlow): Promise<string[]> {
  const p = await prepare(flow);
  try {
    const mark = p.pw.world.server.requests.mark();
    const r = await run(flow, p);
    if (!r.ok) throw new Error(`the normal ${flow} failed: ${r.status} ${r.text.slice(0, 500)}`);
    return [...new Set(p.pw.world.server.requests.filter({ since: mark }).map((q) => q.kind))];
  } finally {
    await closeAll(p);
  }
}

/** One case in a world of its own: the first request of its kind in the flow fails once. */
export async function runPageCase(c: PageCase): Promise<PageResult> {
  const problems = new Problems();
  const p = await prepare(c.flow);
  try {
    const [method, path] = [c.kind.slice(0, c.kind.indexOf(' ')), c.kind.slice(c.kind.indexOf(' ') + 1)];
    const handle = p.pw.world.server.faults.inject({
      method,
      path,
      nth: 1,
      times: 1,
      fault: FAULTS[c.fault]!,
      ...(c.fault === 'lost answer' ? { when: 'after' as const } : {}),
    });
    const first = await run(c.flow, p);
    handle.remove();
    problems.check(handle.fired > 0, 'the fault never fired (the request was not made)');
    if (!first.ok) {
      problems.check(
        CLEAR[c.flow].test(first.text),
        () => `unclear answer ${first.status}: ${first.text.slice(0, 400)}`,
      );
      problems.check(first.status >= 400, `a failure answered ${first.status}`);
      if (c.flow === 'page: login') problems.check(!first.cookie, 'a failed login set a cookie');
    }
    await healed(c.flow, p, first, problems);
    const message = first.ok ? undefined : (CLEAR[c.flow].exec(first.text)?.[0] ?? first.text.slice(0, 200));
    return {
      id: pageCaseId(c),
      outcome: problems.list.length ? 'broken' : first.ok ? 'recovered' : 'error shown',
      problems: problems.list,
      ...(message ? { message } : {}),
    };
  } finally {
    await closeAll(p);
  }
}

/** Kinds only the page or setup makes (the person's token, github.com's web flow, the manifest). */
export const pageOwn = (kind: string) => / \/(user|login\/oauth|app-manifests)\b/.test(kind);

const KEPT_PER_PROCESS = /^GET \/repos\/\{owner\}\/\{repo\}\/git\/blobs\//;

/**
 * The cases. `every`: every fault at each request kind only the page or setup makes. Otherwise (the test's
 * sample) three faults at each of them, rotating so that together they meet every fault kind, a write's lost
 * answer always among them. At the other requests (the runs read with the installation's token, the approval's
 * writes: faulted for the comment handler in api-faults.test.ts) one fault each: a write's lost answer, a
 * read's fault rotating.
 */
export function pageCases(recorded: Map<PageFlow, string[]>, opts: { every?: boolean } = {}): PageCase[] {
  const out: PageCase[] = [];
  const seen = new Set<string>();
  let own = 0;
  let other = 0;
  for (const [flow, kinds] of recorded)
    for (const kind of kinds) {
      // A journal blob is read once per process (content-addressed, kept): a later world meets it kept.
      if (seen.has(kind) || KEPT_PER_PROCESS.test(kind)) continue;
      seen.add(kind);
      const read = kind.startsWith('GET ');
      const faults = FAULT_NAMES.filter((f) => f !== 'lost answer' || !read);
      if (!pageOwn(kind)) {
        out.push({ flow, kind, fault: read ? faults[other++ % faults.length]! : 'lost answer' });
        continue;
      }
      const picked = opts.every
        ? faults
        : [0, 1, 2]
            .map(() => FAULT_NAMES[own++ % FAULT_NAMES.length]!)
            .map((f) => (f === 'lost answer' && read ? 'dropped connection' : f));
      if (!read && !picked.includes('lost answer')) picked[0] = 'lost answer';
      for (const fault of new Set(picked)) out.push({ flow, kind, fault });
    }
  return out;
}

export async function recordPageFlows(): Promise<Map<PageFlow, string[]>> {
  const kinds = await pool(PAGE_FLOWS, 2, recordPageFlow);
  return new Map(PAGE_FLOWS.map((f, i) => [f, kinds[i]!]));
}

export const runPageCases = (cases: PageCase[], jobs = 2) => pool(cases, jobs, runPageCase);
