// The App's memory against repositories × runs × page sessions (issue 50). One App process as an operator runs it
// (`node dist/app.js`, what `npm start` runs; build it first) against the local GitHub, which runs in this process so
// that its memory is not counted: R repositories of one installation with N runs between them, each a node held for
// a person, kept by the git store (the journal branch) as the page's bench keeps them. The App's resident memory
// (VmRSS, /proc/<pid>/status) is read when it has started and served nothing (the baseline, in the same run), after
// a `/interlock status` delivery for every run, and after S people each logged in through the page (GitHub's OAuth)
// and loaded "Waiting for people": each person can act in every repository, the most the page keeps for a person.
import type { ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sign } from '@octokit/webhooks-methods';
import { parseGraph } from '../src/graph/load/load.js';
import { serializeJournal } from '../src/journal/parse.js';
import { freePort, logIn, PAGE_KEY, type PageWorld } from '../test/app/page-world.js';
import { APP, startReplica } from '../test/app/replica-procs.js';
import { buildJournal, CONFIG, DEFAULT_APPROVALS, GRAPH_PATH, GRAPH_TEXT } from '../test/app/world.js';
import { webhookExample } from '../test/support/fixtures.js';
import { clientSecretOf } from '../test/support/github/oauth.js';
import { startGitHubServer } from '../test/support/github-server.js';

const SECRET = 'bench-secret';
/** At once: deliveries in flight, and people loading the page. */
const AT_ONCE = 8;

export interface Size {
  repos: number;
  runs: number;
  sessions: number;
}

export interface MemoryFigures extends Size {
  /** Resident memory (kB): started, after a command on every run, after every session's page; and its peak. */
  idleKb: number;
  afterRunsKb: number;
  afterSessionsKb: number;
  peakKb: number;
  /** Rows on one person's page (every run waits for a person: it should equal `runs`). */
  rows: number;
  seconds: number;
}

const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

/** A process's resident memory and its peak, in kB, as Linux keeps them. */
function memoryOf(child: ChildProcess): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

/** `fn` over `items`, `n` at a time. */
async function inPool<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const settle = () => new Promise((r) => setTimeout(r, 1000));

type GitHub = Awaited<ReturnType<typeof startGitHubServer>>;
interface RunAt {
  repo: string;
  issue: number;
}

/** The repositories, each person a writer in every one, and the runs, each holding `deploy` for a person. */
function seed(github: GitHub, size: Size, people: string[]): RunAt[] {
  const graph = { ...parseGraph({ path: GRAPH_PATH, text: GRAPH_TEXT }), path: GRAPH_PATH };
  const perRepo = Math.ceil(size.runs / size.repos);
  const runs: RunAt[] = [];
  for (let r = 0; r < size.repos; r++) {
    const name = `repo-${String(r).padStart(3, '0')}`;
    const mine = Math.min(perRepo, size.runs - runs.length);
    const repo = github.state.addRepo({
      owner: 'acme',
      name,
      files: { [GRAPH_PATH]: GRAPH_TEXT, '.github/interlock.yml': CONFIG(DEFAULT_APPROVALS) },
      collaborators: Object.fromEntries(people.map((p) => [p, 'write' as const])),
      issues: Array.from({ length: mine }, (_, i) => ({ number: i + 1, title: `Issue ${i + 1}` })),
    });
    const files: Record<string, string> = {};
    for (let i = 1; i <= mine; i++) {
      files[`runs/fix/issue-${i}.json`] = serializeJournal(
        buildJournal(graph, { runId: `fix/issue-${i}`, subject: `issue-${i}` }),
      );
      runs.push({ repo: name, issue: i });
    }
    repo.commitFiles('interlock-journal', files, {}, { orphan: true });
  }
  return runs;
}

/** A signed `/interlock status` delivery by `login` for each run, to the App, answered 2xx. */
async function commandEveryRun(github: GitHub, origin: string, runs: RunAt[], login: string): Promise<void> {
  const base = webhookExample('issue_comment', 'created') as Record<string, Record<string, unknown>>;
  await inPool(runs, AT_ONCE, async ({ repo, issue }) => {
    const comment = github.state.repo(`acme/${repo}`).addComment(issue, '/interlock status', login);
    const body = JSON.stringify({
      ...base,
      repository: {
        ...base.repository,
        name: repo,
        full_name: `acme/${repo}`,
        owner: { ...(base.repository!.owner as object), login: 'acme' },
      },
      issue: { ...base.issue, number: issue, labels: [], pull_request: undefined },
      comment: {
        ...base.comment,
        id: comment.id,
        body: '/interlock status',
        user: { ...(base.comment!.user as object), login, type: 'User' },
      },
      sender: { ...base.sender, login, type: 'User' },
      installation: { id: github.state.app.installationId },
    });
    const r = await fetch(`${origin}/api/github/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': randomBytes(8).toString('hex'),
        'x-hub-signature-256': await sign(SECRET, body),
      },
      body,
    });
    await r.arrayBuffer();
    if (r.status >= 300) throw new Error(`a delivery was answered ${r.status}`);
  });
}

/** Each person logs in through GitHub's OAuth and loads "Waiting for people"; the rows of one page. */
async function everyoneLoadsThePage(github: GitHub, origin: string, people: string[]): Promise<number> {
  const pw = { origin, world: { server: github } } as unknown as PageWorld;
  let rows = -1;
  await inPool(people, AT_ONCE, async (login) => {
    const cookie = await logIn(pw, login);
    const page = await fetch(`${origin}/interlock/`, { headers: { cookie } });
    const html = await page.text();
    if (page.status !== 200) throw new Error(`${login}'s page: ${page.status}`);
    if (rows < 0) rows = (html.match(/<article class="row"/g) ?? []).length;
  });
  return rows;
}

/** The App's environment: webhooks, the page (OAuth at the local GitHub), nothing swept, no write spacing. */
function appEnv(github: GitHub, origin: string): Record<string, string> {
  const clientId = `Iv1.${github.state.app.slug}`;
  return {
    APP_ID: String(github.state.app.id),
    PRIVATE_KEY: privateKey,
    WEBHOOK_SECRET: SECRET,
    HOST: '127.0.0.1',
    GITHUB_API_URL: github.url,
    LOG_LEVEL: 'fatal',
    INTERLOCK_REDELIVER: 'off',
    INTERLOCK_ANSWER_MS: '8000',
    INTERLOCK_WRITE_INTERVAL_MS: '0',
    INTERLOCK_PAGE_URL: origin,
    GITHUB_CLIENT_ID: clientId,
    GITHUB_CLIENT_SECRET: clientSecretOf(clientId),
    GITHUB_WEB_URL: github.url,
    INTERLOCK_PAGE_KEYS: PAGE_KEY,
  };
}

/** One size: its own local GitHub and its own App process. */
async function measure(size: Size): Promise<MemoryFigures> {
  const began = performance.now();
  const github = await startGitHubServer({ likeGitHub: false, rateLimit: Number.MAX_SAFE_INTEGER });
  const people = Array.from({ length: size.sessions }, (_, i) => `maintainer-${i}`);
  const runs = seed(github, size, people);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const app = await startReplica(appEnv(github, origin), port);
  try {
    await settle();
    const idle = memoryOf(app.child);
    await commandEveryRun(github, origin, runs, people[0]!);
    await settle();
    const afterRuns = memoryOf(app.child);
    const rows = await everyoneLoadsThePage(github, origin, people);
    await settle();
    const afterSessions = memoryOf(app.child);
    return {
      ...size,
      idleKb: idle.rss,
      afterRunsKb: afterRuns.rss,
      afterSessionsKb: afterSessions.rss,
      peakKb: afterSessions.hwm,
      rows,
      seconds: (performance.now() - began) / 1000,
    };
  } finally {
    app.child.kill('SIGTERM');
    await app.exited;
    await github.close();
  }
}

/**
 * 20 repositories, 200 runs, 100 sessions, and ten times that (quick: small sizes, for the page's shape).
 * `BENCH_MEMORY_SCALES` picks some of the scales (`1`, `10`, or `1,10`, the default); each row is printed to stderr
 * as soon as it is measured, for a run that is stopped before the end.
 */
export async function appMemory(quick: boolean): Promise<MemoryFigures[]> {
  const unit: Size = quick ? { repos: 2, runs: 4, sessions: 3 } : { repos: 20, runs: 200, sessions: 100 };
  const scales = (process.env.BENCH_MEMORY_SCALES ?? '1,10').split(',').map(Number);
  if (!scales.every((k) => k === 1 || k === 10))
    throw new Error(`BENCH_MEMORY_SCALES=${process.env.BENCH_MEMORY_SCALES}: give 1, 10 or 1,10`);
  const out: MemoryFigures[] = [];
  for (const k of scales) {
    const scale = quick && k === 10 ? 2 : k;
    const f = await measure({
      repos: unit.repos * scale,
      runs: unit.runs * scale,
      sessions: unit.sessions * scale,
    });
    process.stderr.write(`app-memory: ${JSON.stringify(f)}\n`);
    out.push(f);
  }
  return out;
}

export function appMemorySection(figures: MemoryFigures[], command: string): string[] {
  const mb = (kb: number) => (kb / 1024).toFixed(0);
  const kb = (x: number) => x.toFixed(0);
  const [small, big] = [figures[0]!, figures.at(-1)!];
  const grown = (f: MemoryFigures) => f.afterSessionsKb - f.idleKb;
  const margin = (kbOf: (f: MemoryFigures) => number, countOf: (f: MemoryFigures) => number) =>
    (kbOf(big) - kbOf(small)) / Math.max(countOf(big) - countOf(small), 1);
  return [
    "## The App's memory: repositories × runs × page sessions",
    '',
    `One App process (\`node ${APP.split('/').slice(-2).join('/')}\`, what \`npm start\` runs) against the local GitHub, in`,
    'a process of its own so only its memory counts: the repositories of one installation, their runs each holding a',
    'node for a person (the journal branch), a `/interlock status` delivery for every run, then every person logging',
    'in through the page and loading "Waiting for people" (each may act in every repository: the most the page keeps',
    `for a person). Resident memory (VmRSS) once started (the baseline, the same process), after the deliveries and`,
    `after the pages; peak is VmHWM (\`bench/app-memory.ts\`; \`${command}\`).`,
    '',
    '| repositories | runs | sessions | started (MB) | after a command on every run (MB) | after every page (MB) | peak (MB) | ratio to started | per run (kB) | per session (kB) | rows on a page | took (s) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...figures.map(
      (f) =>
        `| ${f.repos} | ${f.runs} | ${f.sessions} | ${mb(f.idleKb)} | ${mb(f.afterRunsKb)} | ${mb(f.afterSessionsKb)} | ${mb(f.peakKb)} | ${(f.afterSessionsKb / f.idleKb).toFixed(2)}x | ${kb((f.afterRunsKb - f.idleKb) / f.runs)} | ${kb((f.afterSessionsKb - f.afterRunsKb) / f.sessions)} | ${f.rows} | ${f.seconds.toFixed(0)} |`,
    ),
    '',
    ...(figures.length > 1
      ? [
          `${big.runs / small.runs} times the repositories, runs and sessions grew the process by ${(grown(big) / Math.max(grown(small), 1)).toFixed(1)}x`,
          `as much over its start (${mb(grown(small))} MB → ${mb(grown(big))} MB): at the margin, ${kb(
            margin(
              (f) => f.afterRunsKb - f.idleKb,
              (f) => f.runs,
            ),
          )} kB a run`,
          `and ${kb(
            margin(
              (f) => f.afterSessionsKb - f.afterRunsKb,
              (f) => f.sessions,
            ),
          )} kB a session (the growth between the two sizes over what was added; the first`,
          'size also pays for what any first delivery and page load, of any size, make the process load and keep).',
        ]
      : []),
    'Resident memory counts garbage not yet',
    'collected, so "per run" and "per session" are upper bounds; the peak is what a container limit must allow.',
    '',
  ];
}
