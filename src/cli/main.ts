import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatSourceError, GraphError } from '../graph/errors.js';
import type { Graph } from '../graph/model.js';
import type { EscalationReport } from '../journal/events.js';
import { JournalError } from '../journal/fold.js';
import { parseDuration, stuckRuns } from '../journal/stuck.js';
import { killAllChildren } from '../os/exec.js';
import { confineToWorkspace } from '../os/workspace-path.js';
import { approveRerun, failRun, settleNode } from '../protocol/settle.js';
import { statusMermaid, statusTable } from '../render/status.js';
import {
  type Current,
  RunRefused,
  type RunSetup,
  readRun,
  recover,
  type StepSetup,
  settleRun,
  step,
} from '../runner/engine.js';
import { loadGraphFile } from '../runner/graph-file.js';
import { localRunner, probeLocal } from '../runner/liveness.js';
import { FileStore } from '../store/file.js';

/** What the CLI writes to; injected so tests can capture it. */
export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export const EXIT = { ok: 0, failed: 1, usage: 2, blocked: 3 } as const;

export class UsageError extends Error {}

const USAGE = `interlock: run workflow graphs deterministically

usage:
  interlock validate <graph>
  interlock run <graph> [--journal F] [--run-id ID] [--node ID | --all] [--event F] [--input k=v]...
                        [--allow-graph-change] [--assume-dead]
  interlock status [--journal F | --run-id ID] [--json | --mermaid]
  interlock recover [--journal F | --run-id ID] [--assume-dead] [--allow-graph-change]
  interlock approve-rerun <node> --by NAME [--reason T] [--attempt N] [--journal F | --run-id ID]
  interlock settle <node> --by NAME --note T [--journal F | --run-id ID]
  interlock fail-run --by NAME --reason T [--journal F | --run-id ID]
  interlock stuck [--dir D] [--older-than 24h] [--json]

exit codes: 0 progressed or completed, 1 an attempt failed, 2 bad input, 3 blocked (held, escalated, nothing ready)
journal: .interlock/runs/<run-id>.json unless --journal is given; run id defaults to the graph's name`;

const RUN_ID = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

function checkRunId(id: string): string {
  if (!RUN_ID.test(id) || id.split('/').some((s) => s === '..' || s === '.')) {
    throw new UsageError(
      `run id "${id}" is not allowed: use letters, digits, ".", "_", "-" and "/" between parts`,
    );
  }
  return id;
}

/** The default folder of journals: .interlock/runs under the working directory. */
function defaultRunsDir(io: Io): string {
  return resolve(io.cwd, '.interlock', 'runs');
}

function journalPath(io: Io, journal: string | undefined, runId: string | undefined): string {
  if (journal) return resolve(io.cwd, journal);
  if (runId) return join(defaultRunsDir(io), `${checkRunId(runId)}.json`);
  // With one run in the default folder, there is nothing to ask.
  const runsDir = defaultRunsDir(io);
  const found = listJson(runsDir);
  if (found.length === 1) return found[0]!;
  const names = found.map((f) => f.slice(runsDir.length + 1, -'.json'.length));
  throw new UsageError(
    found.length
      ? `${found.length} runs in .interlock/runs (${names.join(', ')}): name one with --run-id ID`
      : 'no run in .interlock/runs: name the journal with --journal F, or start a run with "interlock run <graph>"',
  );
}

function parseInputs(list: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list ?? []) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`--input "${item}" must be key=value`);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

function person(io: Io, by: string | undefined): string {
  if (by?.trim()) return by.trim();
  return io.env.USER || safeUser() || 'unknown';
}

function safeUser(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}

/** Reads the event file given with --event, for the `github` expression context. */
function readEvent(io: Io, file: string | undefined): { github: unknown; subject: string; intent: string } {
  if (!file) return { github: null, subject: 'local', intent: 'cli' };
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(readFileSync(resolve(io.cwd, file), 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new UsageError(`--event ${file}: cannot read it as JSON (${(e as Error).message})`);
  }
  const issue = payload.issue as { number?: number; pull_request?: unknown } | undefined;
  const pr = payload.pull_request as { number?: number } | undefined;
  const subject = pr?.number
    ? `pr-${pr.number}`
    : issue?.number
      ? `${issue.pull_request ? 'pr' : 'issue'}-${issue.number}`
      : 'local';
  const action = typeof payload.action === 'string' ? payload.action : undefined;
  return { github: { event: payload }, subject, intent: `cli${action ? ` (${action})` : ''}` };
}

function stepSetup(
  io: Io,
  base: RunSetup,
  journalFile: string,
  assumeDead: boolean,
  live: boolean,
): StepSetup {
  const logDir = `${journalFile.replace(/\.json$/, '')}.logs`;
  const logFile = (node: string, attempt: number) => join(logDir, `${node}-${attempt}.log`);
  let pending = '';
  return {
    ...base,
    cwd: io.cwd,
    baseEnv: io.env,
    runner: localRunner,
    probe: (node, d) => probeLocal(d, { assumeDead, logFile: (a) => logFile(node, a) }),
    recoveredBy: `interlock recover (${person(io, undefined)})`,
    logFile: (node, attempt) => {
      mkdirp(logDir);
      return logFile(node, attempt);
    },
    say: (m) => io.err(`interlock: ${m}\n`),
    ...(live
      ? {
          echo: (chunk: Buffer) => {
            pending += chunk.toString('utf8');
            const lines = pending.split('\n');
            pending = lines.pop() ?? '';
            for (const l of lines) io.err(`  │ ${l}\n`);
          },
        }
      : {}),
  };
}

function mkdirp(dir: string) {
  mkdirSync(dir, { recursive: true });
}

/** Opens an existing run for status and settlement: the journal, and the graph it names. */
async function openExisting(
  io: Io,
  journalFile: string,
  graphPath: string | undefined,
  allowChangeBy?: string,
) {
  const store = new FileStore(journalFile);
  const stored = await store.read();
  if (!stored)
    throw new UsageError(`no journal at ${journalFile}: start the run with "interlock run <graph>"`);
  const graph = loadGraphFile(
    graphPath
      ? resolve(io.cwd, graphPath)
      : confineToWorkspace(io.cwd, stored.journal.graph.path, "the journal's graph path"),
  );
  const setup: RunSetup = {
    graph,
    store,
    runId: stored.journal.run_id,
    start: { intent: '', subject: '', inputs: {}, github: null },
    ...(allowChangeBy ? { allowGraphChangeBy: allowChangeBy } : {}),
  };
  return { graph, setup, store };
}

const STEP_EXIT: Record<string, number> = {
  recorded: EXIT.ok,
  skipped: EXIT.ok,
  'run-completed': EXIT.ok,
  failed: EXIT.failed,
  escalated: EXIT.failed,
  stale: EXIT.failed,
  blocked: EXIT.blocked,
};

async function cmdRun(io: Io, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      journal: { type: 'string' },
      'run-id': { type: 'string' },
      node: { type: 'string' },
      all: { type: 'boolean' },
      event: { type: 'string' },
      input: { type: 'string', multiple: true },
      'allow-graph-change': { type: 'boolean' },
      'assume-dead': { type: 'boolean' },
      by: { type: 'string' },
      quiet: { type: 'boolean' },
    },
  });
  const graphPath = positionals[0];
  if (!graphPath || positionals.length > 1) throw new UsageError('usage: interlock run <graph> [options]');
  if (values.node && values.all) throw new UsageError('give --node ID or --all, not both');
  const graph = loadGraphFile(resolve(io.cwd, graphPath));
  const runId = checkRunId(values['run-id'] ?? graph.name);
  const journalFile = journalPath(io, values.journal, runId);
  const ev = readEvent(io, values.event);
  const base: RunSetup = {
    graph: { ...graph, path: graphPath },
    store: new FileStore(journalFile),
    runId,
    start: { intent: ev.intent, subject: ev.subject, inputs: parseInputs(values.input), github: ev.github },
    ...(values['allow-graph-change'] ? { allowGraphChangeBy: person(io, values.by) } : {}),
  };
  const setup = stepSetup(io, base, journalFile, values['assume-dead'] ?? false, !values.quiet);
  const started = Date.now();
  while (true) {
    const t0 = Date.now();
    const r = await step(setup, values.node);
    const el = ((Date.now() - t0) / 1000).toFixed(1);
    const mark = {
      recorded: '✓',
      skipped: '↷',
      failed: '✗',
      escalated: '⚠',
      'run-completed': '★',
      ended: '■',
      blocked: '⏸',
      stale: '?',
    }[r.kind];
    io.err(`${mark} ${r.message}${'node' in r ? ` [${el}s]` : ''}\n`);
    const ended = r.cur.state.checkpoint.ended;
    if (ended && r.kind !== 'ended' && r.kind !== 'run-completed') {
      io.err(`${ended.type === 'RunCompleted' ? '★ run completed' : '■ run failed'}: ${ended.reason}\n`);
    }
    if (r.kind === 'ended' || (values.all && ended))
      return ended?.type === 'RunFailed' ? EXIT.failed : (STEP_EXIT[r.kind] ?? EXIT.ok);
    const code = STEP_EXIT[r.kind]!;
    if (!values.all || r.kind === 'run-completed' || r.kind === 'blocked' || r.kind === 'stale') {
      if (values.all)
        io.err(
          `interlock: ${r.cur.state.checkpoint.status} after ${((Date.now() - started) / 1000).toFixed(1)}s\n`,
        );
      return values.all && r.kind === 'blocked' ? EXIT.blocked : code;
    }
  }
}

function selectJournal(
  io: Io,
  values: { journal?: string | undefined; 'run-id'?: string | undefined },
): string {
  return journalPath(io, values.journal, values['run-id']);
}

const runOptions = {
  journal: { type: 'string' },
  'run-id': { type: 'string' },
  graph: { type: 'string' },
} as const;

async function cmdStatus(io: Io, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { ...runOptions, json: { type: 'boolean' }, mermaid: { type: 'boolean' } },
  });
  const journalFile = selectJournal(io, values);
  const { graph, setup } = await openExisting(io, journalFile, values.graph);
  const cur = await readRun(setup, { kind: 'local' });
  if (cur.state.accepted_hash !== graph.hash) {
    io.err(
      `interlock: note: ${graph.path} changed since the run started (${cur.state.accepted_hash} → ${graph.hash})\n`,
    );
  }
  if (values.json) io.out(`${JSON.stringify(cur.state.checkpoint, null, 2)}\n`);
  else if (values.mermaid) io.out(`${statusMermaid(graph, cur.state)}\n`);
  else io.out(`${statusTable(graph, cur.state)}\n${nextHint(cur)}`);
  return EXIT.ok;
}

function nextHint(cur: Current): string {
  const cp = cur.state.checkpoint;
  const run = `--run-id ${cp.run_id}`;
  const lines: string[] = [];
  for (const n of cp.held_nodes) {
    lines.push(
      `held: ${n} (its attempt was interrupted and may have partly run). Check, then either`,
      `  interlock approve-rerun ${n} --by NAME ${run}     # run it again`,
      `  interlock settle ${n} --by NAME --note "..." ${run}   # it is done: record it`,
    );
  }
  for (const n of cp.escalated_nodes) {
    lines.push(`escalated: ${n}`, ...reportLines(cur.state.nodes.get(n)?.report));
    lines.push(
      `  interlock approve-rerun ${n} --by NAME ${run}  |  interlock settle ${n} --by NAME --note "..." ${run}  |  interlock fail-run --by NAME --reason "..." ${run}`,
    );
  }
  return lines.length ? `\n${lines.join('\n')}\n` : '';
}

/** The escalation report in plain lines. */
export function reportLines(report: EscalationReport | undefined): string[] {
  if (!report) return [];
  const out = report.attempted.map((a) => {
    const f = report.failed.find((x) => x.attempt === a.attempt);
    const why = f ? f.failures.map((x) => `${x.check}: ${x.message}`).join('; ') : 'no failure recorded';
    return `  attempt ${a.attempt} (${a.approach}) ${a.work} — failed: ${why}`;
  });
  out.push(`  approaches tried: ${report.approaches_tried.join(', ')}`, `  needed: ${report.needed}`);
  return out;
}

async function cmdRecover(io: Io, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      ...runOptions,
      'assume-dead': { type: 'boolean' },
      'allow-graph-change': { type: 'boolean' },
      by: { type: 'string' },
    },
  });
  const journalFile = selectJournal(io, values);
  const { setup } = await openExisting(
    io,
    journalFile,
    values.graph,
    values['allow-graph-change'] ? person(io, values.by) : undefined,
  );
  const r = await recover(stepSetup(io, setup, journalFile, values['assume-dead'] ?? false, false));
  for (const id of r.interrupted) {
    const held = r.cur.state.nodes.get(id)?.state === 'held';
    io.out(
      `interrupted: ${id} → ${held ? 'held (replay: never): approve-rerun or settle it' : 'ready again (replay: safe)'}\n`,
    );
  }
  for (const l of r.left) io.out(`left alone: ${l.node}: ${l.why}\n`);
  if (!r.interrupted.length && !r.left.length) io.out('nothing in flight\n');
  return EXIT.ok;
}

async function cmdSettle(
  io: Io,
  verb: 'approve-rerun' | 'settle' | 'fail-run',
  args: string[],
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...runOptions,
      by: { type: 'string' },
      reason: { type: 'string' },
      note: { type: 'string' },
      attempt: { type: 'string' },
      'allow-graph-change': { type: 'boolean' },
    },
  });
  if (!values.by?.trim()) throw new UsageError(`${verb} needs --by NAME: the person who decides is recorded`);
  const node = positionals[0];
  if (verb !== 'fail-run' && (!node || positionals.length > 1))
    throw new UsageError(`usage: interlock ${verb} <node> --by NAME`);
  if (verb === 'settle' && !values.note?.trim())
    throw new UsageError('settle needs --note T: say what you checked');
  if (verb === 'fail-run' && !values.reason?.trim()) throw new UsageError('fail-run needs --reason T');
  const attempt = values.attempt !== undefined ? Number(values.attempt) : undefined;
  if (attempt !== undefined && !(Number.isInteger(attempt) && attempt > 0))
    throw new UsageError('--attempt must be a positive whole number');
  const journalFile = selectJournal(io, values);
  const { graph, setup } = await openExisting(
    io,
    journalFile,
    values.graph,
    values['allow-graph-change'] ? values.by : undefined,
  );
  const source = `cli:${safeUser() ?? 'unknown'}`;
  const r = await settleRun(setup, { kind: 'person', host: source }, (cur) => {
    if (verb === 'approve-rerun') {
      return approveRerun(graph, cur.state, {
        node: node!,
        by: values.by!,
        source,
        ...(attempt !== undefined ? { attempt } : {}),
        ...(values.reason ? { reason: values.reason } : {}),
      });
    }
    if (verb === 'settle') {
      return settleNode(graph, cur.journal, cur.state, {
        node: node!,
        by: values.by!,
        note: values.note!,
        source,
        ...(attempt !== undefined ? { attempt } : {}),
      });
    }
    return failRun(cur.state, { by: values.by!, reason: values.reason! });
  });
  if (!r.ok) {
    io.err(`interlock: ${verb} refused: ${r.reason}\n`);
    return EXIT.usage;
  }
  const what =
    verb === 'approve-rerun'
      ? `approved a rerun of "${node}"`
      : verb === 'settle'
        ? `settled "${node}" as done`
        : 'failed the run';
  io.out(`${values.by} ${what}; run is ${r.cur.state.checkpoint.status}\n`);
  return EXIT.ok;
}

async function cmdStuck(io: Io, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { dir: { type: 'string' }, 'older-than': { type: 'string' }, json: { type: 'boolean' } },
  });
  const dir = resolve(io.cwd, values.dir ?? '.interlock/runs');
  const threshold = parseDuration(values['older-than'] ?? '24h');
  if (threshold === undefined)
    throw new UsageError(
      `--older-than "${values['older-than']}": use a number and a unit, e.g. 30m, 24h, 7d`,
    );
  const files = listJson(dir);
  const found = stuckRuns(
    files.map((f) => ({ file: f, text: readFileSync(f, 'utf8') })),
    Date.now(),
    threshold,
  );
  if (values.json) io.out(`${JSON.stringify(found, null, 2)}\n`);
  else if (!found.length)
    io.out(`no run in ${dir} has been idle for over ${values['older-than'] ?? '24h'}\n`);
  else
    for (const s of found)
      io.out(
        `${s.run_id}: idle ${s.idle}, last ${s.last_event} at ${s.last_activity_at} (${s.file})${s.error ? ` — ${s.error}` : ''}\n`,
      );
  return EXIT.ok;
}

function listJson(dir: string): string[] {
  const out: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = join(dir, e);
    const s = statSync(p);
    if (s.isDirectory()) out.push(...listJson(p));
    else if (e.endsWith('.json')) out.push(p);
  }
  return out.sort();
}

function cmdValidate(io: Io, args: string[]): number {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new UsageError('usage: interlock validate <graph>');
  const graph: Graph = loadGraphFile(resolve(io.cwd, positionals[0]!));
  io.out(`${positionals[0]}: ok — graph "${graph.name}", ${graph.nodes.length} node(s), ${graph.hash}\n`);
  return EXIT.ok;
}

/** Runs the CLI; returns the exit code. Never calls process.exit. */
export async function main(argv: string[], io: Io): Promise<number> {
  const [verb, ...rest] = argv;
  try {
    switch (verb) {
      case 'validate':
        return cmdValidate(io, rest);
      case 'run':
        return await cmdRun(io, rest);
      case 'status':
        return await cmdStatus(io, rest);
      case 'recover':
        return await cmdRecover(io, rest);
      case 'approve-rerun':
      case 'settle':
      case 'fail-run':
        return await cmdSettle(io, verb, rest);
      case 'stuck':
        return await cmdStuck(io, rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(`${USAGE}\n`);
        return verb === undefined ? EXIT.usage : EXIT.ok;
      default:
        throw new UsageError(`unknown command "${verb}"\n\n${USAGE}`);
    }
  } catch (e) {
    if (e instanceof GraphError) {
      io.err(`${e.errors.map(formatSourceError).join('\n')}\n`);
      return EXIT.usage;
    }
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`interlock: ${(e as Error).message}\n`);
      return EXIT.usage;
    }
    if (e instanceof JournalError || e instanceof RunRefused) {
      io.err(`interlock: ${(e as Error).message}\n`);
      return EXIT.usage;
    }
    throw e;
  }
}

/** Stops the node's command when the CLI is interrupted; the attempt stays in flight for recovery to find. */
export function installSignalHandlers(): void {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      killAllChildren('SIGTERM');
      process.stderr.write(
        `\ninterlock: ${sig}: stopped; the attempt stays in flight until "interlock recover" marks it interrupted\n`,
      );
      process.exit(sig === 'SIGINT' ? 130 : 143);
    });
  }
}
