// Runs the bundled CLI as real child processes, the way a person or a CI job runs it, and keeps track of
// every process a test starts (including node commands that outlive a killed CLI) so none survives a test.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Journal, JournalEvent } from '../../src/journal/events/events.js';
import { parseJournal } from '../../src/journal/parse.js';
import { processAlive } from '../../src/os/processes.js';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** Fails early with the fix when the bundle is missing (`npm test` builds it before vitest runs). */
export function requireBundle(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Started {
  child: ChildProcess;
  exited: Promise<Exit>;
}

const CALL_TIMEOUT_MS = 60_000;
const POLL_MS = 25;

/**
 * One test's sandbox: a fresh directory for the graph and its journal, and a tag that every process the
 * test starts carries in its environment, so cleanup finds orphaned node commands as well.
 */
export class Sandbox {
  readonly dir: string;
  readonly tag = randomUUID();
  private readonly children = new Set<ChildProcess>();

  constructor(prefix = 'interlock-crash-') {
    this.dir = mkdtempSync(join(tmpdir(), prefix));
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  write(name: string, text: string): void {
    writeFileSync(this.path(name), text);
  }

  read(name: string): string | null {
    try {
      return readFileSync(this.path(name), 'utf8');
    } catch {
      return null;
    }
  }

  /** The lines of a file, empty when it does not exist. */
  lines(name: string): string[] {
    return (this.read(name) ?? '').split('\n').filter((l) => l !== '');
  }

  remove(name: string): void {
    rmSync(this.path(name), { force: true });
  }

  exists(name: string): boolean {
    return existsSync(this.path(name));
  }

  /** Starts `node dist/cli.js ...args` in the sandbox without waiting for it. */
  start(args: string[], env: Record<string, string> = {}): Started {
    const base = { ...process.env };
    for (const k of Object.keys(base)) if (k.startsWith('INTERLOCK_')) delete base[k];
    // The CLI's per-attempt temp dirs go in the sandbox: a killed CLI never removes its own.
    const tmp = this.path('.tmp');
    mkdirSync(tmp, { recursive: true });
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: this.dir,
      env: { ...base, ...env, TMPDIR: tmp, INTERLOCK_TEST_TAG: this.tag },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const exited = new Promise<Exit>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => {
        this.children.delete(child);
        resolve({ code, signal, stdout, stderr });
      });
    });
    return { child, exited };
  }

  /** Runs the CLI to its end; a call that hangs fails the test instead of the whole suite. */
  async cli(args: string[], env: Record<string, string> = {}): Promise<Exit> {
    const { child, exited } = this.start(args, env);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`interlock ${args.join(' ')} did not finish within ${CALL_TIMEOUT_MS / 1000}s`));
      }, CALL_TIMEOUT_MS);
    });
    try {
      return await Promise.race([exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** `status --json` of a run, parsed. */
  async status(runId: string): Promise<Checkpoint> {
    const r = await this.cli(['status', '--run-id', runId, '--json']);
    if (r.code !== 0) throw new Error(`status exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout) as Checkpoint;
  }

  /** The run's journal file, validated by the same parser the CLI uses. */
  journal(runId: string): Journal {
    const file = this.path(`.interlock/runs/${runId}.json`);
    return parseJournal(readFileSync(file, 'utf8'), file);
  }

  /** Every process still carrying this sandbox's tag: CLI processes and the node commands they started. */
  tagged(): number[] {
    const needle = `INTERLOCK_TEST_TAG=${this.tag}`;
    const found: number[] = [];
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(needle)) {
          found.push(Number(entry));
        }
      } catch {
        // gone, or not ours
      }
    }
    return found;
  }

  /** Kills every process this test started, and removes the sandbox. */
  async cleanup(): Promise<void> {
    for (const child of this.children) child.kill('SIGKILL');
    for (const pid of this.tagged()) killGroup(pid);
    await waitFor(() => this.tagged().length === 0 && this.children.size === 0, {
      what: 'every test process to exit',
      timeoutMs: 10_000,
    }).catch(() => {});
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** What vitest hands a test and its hooks; sandboxes are filed under the test's id. */
interface TestContext {
  task: { id: string };
}

const open = new Map<string, Sandbox[]>();

/** A fresh sandbox for the running test; `cleanupSandboxes` in afterEach kills what it started. */
export function sandbox(ctx: TestContext, prefix?: string): Sandbox {
  const s = new Sandbox(prefix);
  open.set(ctx.task.id, [...(open.get(ctx.task.id) ?? []), s]);
  return s;
}

/** For afterEach: kills every process the test started (even when it failed midway) and removes its sandboxes. */
export async function cleanupSandboxes(ctx: TestContext): Promise<void> {
  const list = open.get(ctx.task.id) ?? [];
  open.delete(ctx.task.id);
  await Promise.all(list.map((s) => s.cleanup()));
}

/** The keys of `status --json` these tests read. */
export interface Checkpoint {
  run_id: string;
  status: 'running' | 'blocked' | 'completed' | 'failed';
  completed_nodes: string[];
  held_nodes: string[];
  escalated_nodes: string[];
  active_nodes: string[];
  ready_nodes: string[];
  attempts: Record<string, number>;
}

/** SIGKILLs a process and its whole group (node commands run in a group of their own). */
export function killGroup(pid: number): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // already gone, or not a group leader
    }
  }
}

/** True once the process no longer runs (gone, or a zombie nobody has reaped yet): src/os/processes.ts decides. */
export function processGone(pid: number): boolean {
  return !processAlive(pid);
}

/** Polls until the condition holds; a deadline rather than a fixed sleep keeps a loaded machine honest. */
export async function waitFor(
  condition: () => boolean,
  opts: { what: string; timeoutMs?: number },
): Promise<void> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${opts.what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

export function eventsOf<T extends JournalEvent['type']>(
  journal: Journal,
  type: T,
  node?: string,
): Array<Extract<JournalEvent, { type: T }>> {
  return journal.events.filter(
    (e): e is Extract<JournalEvent, { type: T }> =>
      e.type === type && (node === undefined || ('node' in e && e.node === node)),
  );
}
