/**
 * `interlock ui`: the maintainers' page for the local journals (`.interlock/runs`), served on 127.0.0.1 only,
 * with no login: the URL it prints carries a random token (compared in constant time), every form a CSRF token, and
 * a request whose `Host` is not `127.0.0.1:<port>` is refused (DNS rebinding). The buttons do what
 * `interlock approve`, `approve-rerun`, `settle` and `fail-run` do (`applyLocal`), recorded under `--by` (the
 * user running it by default), bound to what the page showed.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Outcome } from '../../approvals/deps.js';
import type { PageBackend, PageForm, Seen } from '../../approvals/page/backend.js';
import { PageServer } from '../../approvals/page/serve.js';
import { pageCommand } from '../../approvals/page-action.js';
import type { Journal } from '../../journal/events/events.js';
import { fold } from '../../journal/fold.js';
import { unreadableRun } from '../../journal/waiting-unfolded.js';
import { secretValues } from '../../os/node-user/node-credentials.js';
import { handledBefore, type PersonCommand } from '../../protocol/commands/person-commands.js';
import {
  approveCommand,
  approveRerunCommand,
  failRunCommand,
  type RunRef,
  settleCommand,
} from '../../render/next-commands.js';
import { LOCAL, type PageRun } from '../../render/page/waiting-model.js';
import { GraphChangeRefused } from '../../runner/journal-io/read.js';
import { FileStore } from '../../store/file.js';
import { EXIT, type Io, person, UsageError } from '../io.js';
import { openExisting, runsIn } from '../journals.js';
import { applyLocal } from './person-command.js';

export interface RunningUi {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** The local journals as the page's data: every run in the folder, the local user may act on all. */
function localBackend(io: Io, dir: string, by: string): PageBackend {
  async function read(): Promise<{ seen: Seen; files: Map<string, string> }> {
    const seen: Seen = { repos: [LOCAL], runs: [], problems: [] };
    const files = new Map<string, string>();
    for (const { where: file } of runsIn(dir)) {
      let journal: Journal | null = null;
      try {
        const stored = await new FileStore(file).read();
        if (!stored) continue;
        journal = stored.journal;
        const { graph } = await openExisting(io, { journalFile: file, graphPath: undefined });
        files.set(stored.journal.run_id, file);
        seen.runs.push({
          repo: LOCAL,
          journal,
          graph,
          state: fold(journal, graph),
          secrets: secretValues(io.env),
        });
      } catch (e) {
        // A run this page cannot fold still shows what waits in it, with the one line that says how to read it.
        const why = unreadableRun(journal, (e as Error).message);
        seen.problems.push({ repo: LOCAL, why: journal ? why : `${file}: ${why}` });
      }
    }
    return { seen, files };
  }
  return {
    see: async () => (await read()).seen,
    run: async (_v, repo, runId): Promise<PageRun | undefined> =>
      repo === LOCAL ? (await read()).seen.runs.find((r) => r.journal.run_id === runId) : undefined,
    mayAct: async () => () => ({ ok: true }),
    async act(_v, form: PageForm, source: string): Promise<Outcome> {
      const file = (await read()).files.get(form.runId);
      if (!file) return { kind: 'refused', why: `no run "${form.runId}" in ${dir}` };
      const made = pageCommand({ ...form, login: by, source, defaultBranch: '' });
      if (!made.ok) return { kind: 'refused', why: made.why };
      const { runId: _runId, ...command } = made.command as PersonCommand & { runId?: string };
      const { repo: _repo, formId: _id, runId: _run, action: _a, text: _t, ...bound } = form;
      let r: Awaited<ReturnType<typeof applyLocal>>;
      try {
        r = await applyLocal(io, { journalFile: file, graphPath: undefined, by, command, source, bound });
      } catch (e) {
        if (!(e instanceof GraphChangeRefused)) throw e;
        // A run in .interlock/runs is named by its id, as the CLI's own commands name it; any other by its file.
        const named = relative(io.cwd, file);
        const byId = named === join('.interlock', 'runs', `${form.runId}.json`);
        const run = { runId: form.runId, journal: byId ? undefined : named, graphChanged: true };
        return {
          kind: 'refused',
          why: `${e.message.split(';')[0]}; nothing was recorded. To go on under the new graph, in a terminal: ${cliCommand(command, run)}`,
        };
      }
      if (r.ok) return { kind: 'done', what: `${form.action} ${form.node} by ${by}`, command: made.command };
      const now = (await read()).seen.runs.find((x) => x.journal.run_id === form.runId);
      if (now && handledBefore(now.journal, now.state, source)) return { kind: 'ignored', why: r.reason };
      return { kind: 'refused', why: r.reason };
    },
  };
}

/** A person's command in the CLI's words. */
function cliCommand(c: PersonCommand, run: RunRef): string {
  if (c.kind === 'approve') return approveCommand('cli', c.node, run);
  if (c.kind === 'approve-rerun') return approveRerunCommand('cli', c.node, run);
  if (c.kind === 'settle') return settleCommand('cli', c.node, run);
  if (c.kind === 'fail-run') return failRunCommand('cli', run);
  return `interlock rerun-from ${c.node} --journal ${run.journal} --allow-graph-change`;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Whether `candidate` is the page's token: both hashed to 32 bytes and compared with timingSafeEqual, so neither
 * the time taken nor the length of what was sent tells how much of it was right.
 */
function isToken(candidate: string, token: string): boolean {
  return timingSafeEqual(digest(candidate), digest(token));
}

/**
 * Whether a request may reach the page: its `Host` is the page's own `127.0.0.1:<port>` (a name an attacker's DNS
 * points at 127.0.0.1 is refused, against DNS rebinding), and its path begins with `/t/<token>`.
 */
function admitted(req: IncomingMessage, host: string, token: string): 'host' | 'token' | undefined {
  if (req.headers.host !== host) return 'host';
  const path = new URL(req.url ?? '/', 'http://page.invalid').pathname;
  const candidate = path.startsWith('/t/') ? path.slice(3).split('/')[0]! : '';
  return isToken(candidate, token) ? undefined : 'token';
}

/** Serves the page for the journals in `dir` on 127.0.0.1:`port` (0: any free port). */
export async function startUi(io: Io, o: { dir: string; port: number; by: string }): Promise<RunningUi> {
  const token = randomBytes(24).toString('base64url');
  const csrf = randomBytes(24).toString('base64url');
  const server = createServer();
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(o.port, '127.0.0.1', () => ok());
  });
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const origin = `http://${host}`;
  const base = `/t/${token}`;
  const page = new PageServer({
    base,
    origin,
    backend: localBackend(io, o.dir, o.by),
    viewer: () => ({ csrf }),
    anonymous: (_req, res) => res.writeHead(404).end(),
    refreshSeconds: 30,
  });
  server.on('request', (req, res) => {
    const refused = admitted(req, host, token);
    const text = { 'content-type': 'text/plain', 'x-content-type-options': 'nosniff' };
    if (refused === 'host')
      return void res
        .writeHead(421, text)
        .end(`this page answers only at ${origin} (the Host header named another)\n`);
    if (refused) return void res.writeHead(404, text).end('not found\n');
    void page.handle(req, res).then((handled) => {
      if (!handled) res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    });
  });
  return {
    url: `${origin}${base}/`,
    server,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

export async function cmdUi(io: Io, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { dir: { type: 'string' }, port: { type: 'string' }, by: { type: 'string' } },
  });
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be 0 to 65535');
  const dir = resolve(io.cwd, values.dir ?? '.interlock/runs');
  const ui = await startUi(io, { dir, port, by: person(io, values.by) });
  io.out(
    `interlock ui: the page for ${dir} is at\n  ${ui.url}\n(127.0.0.1 only; the token in the URL is the key: do not share it; Ctrl-C stops)\n`,
  );
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await ui.close();
  return EXIT.ok;
}
