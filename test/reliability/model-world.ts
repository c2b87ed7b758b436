/**
 * The model-based test's world on the cheap path (issue 45): one folder with a graph, a local file journal per
 * run (`.interlock/runs/`), the CLI called in-process (`main`, as `dist/cli.js` calls it) and, where a process must
 * die mid-command, the bundled CLI (`node dist/cli.js`) killed at a failpoint. Node commands append one line per
 * attempt to an effects log outside the journal: the world's record of what happened.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { RunningUi } from '../../src/cli/commands/ui.js';
import { main } from '../../src/cli/main.js';
import { CLI } from '../crash/harness.js';

/** The main run's id: shaped as the Action names a run (`<graph>/issue-<n>`), so ids after it follow that rule. */
export const MAIN_RUN = 'm/issue-7';
export const NODES = ['a', 'b', 'c'] as const;
export type NodeId = (typeof NODES)[number];

/**
 * `a`: a plain command, `replay: never` (a killed attempt is held). `b`: an agent whose usage counts toward its own
 * budget, the run's budget and the repository's daily cap. `c`: a gate (`approval: before`), `replay: safe`. `b`
 * and `c` need two people's approval (so a node waits with one approval given, and the faces must say by whom).
 * `version` is in every node's command or prompt: changing it changes each node's definition (the scripts ignore it).
 */
export function graphText(version: number): string {
  return `interlock: 1
name: m
budget: { cost_usd: 9 }
nodes:
  - id: a
    run: ./step.sh a v${version}
    validates:
      - file: out/a
  - id: b
    depends_on: [a]
    prompt: work on b v${version}
    agent: ./agent.sh
    budget: { cost_usd: 3 }
    approvals: { required: 2 }
    validates:
      - file: out/b
  - id: c
    depends_on: [b]
    approval: before
    approvals: { required: 2 }
    replay: safe
    run: ./step.sh c v${version}
    validates:
      - file: out/c
`;
}

/** A world's daily cap: `usual`, unless `INTERLOCK_MODEL_DAILY_CAP` changes it (a probe: 1000 is never met). */
export const dailyCap = (usual: number) => Number(process.env.INTERLOCK_MODEL_DAILY_CAP ?? usual);

/** The repository's daily cap (`.github/interlock.yml`) in the CLI's world. */
export const DAILY_CAP = dailyCap(2);

/** Another run the same day whose agent spends past the daily cap. */
const SPEND_GRAPH = `interlock: 1
name: spend
nodes:
  - id: s
    prompt: spend
    agent: ./agent.sh
`;

// Each attempt's side effect is one line, then the outcome the test chose for this node (ctl/<node>).
export const STEP = `#!/bin/sh
echo "$INTERLOCK_RUN_ID $1 $INTERLOCK_ATTEMPT" >> "$EFFECTS"
if [ "$(cat ctl/$1 2>/dev/null)" = pass ]; then mkdir -p out && echo ok > "out/$1"; else rm -f "out/$1"; exit 1; fi
`;
export const AGENT = `#!/bin/sh
cat > /dev/null
echo "$INTERLOCK_RUN_ID $INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> "$EFFECTS"
cost=$(cat "ctl/cost-$INTERLOCK_NODE" 2>/dev/null || echo 1)
echo "{\\"cost_usd\\": $cost, \\"turns\\": 1}" > "$INTERLOCK_USAGE"
if [ "$(cat "ctl/$INTERLOCK_NODE" 2>/dev/null)" = pass ]; then mkdir -p out && echo ok > "out/$INTERLOCK_NODE"; else rm -f "out/$INTERLOCK_NODE"; exit 1; fi
`;

export interface Call {
  args: string[];
  code: number;
  out: string;
  err: string;
  /** The process died at its failpoint (the bundle only). */
  killed?: boolean;
  /** The journals just before this call, when the command ran after an earlier step of its own (a retyped command). */
  before?: Map<string, string>;
  /** `main` threw: what `dist/cli.js` prints as "unexpected error" with a stack trace. */
  threw?: string;
}

/** What a refused command exits with (`EXIT.usage`: bad input or refused). */
export const REFUSED = 2;

/** Files and folders, modes kept; attempts' logs (`*.logs/`) are not what a command reads. */
function copyTree(from: string, to: string): void {
  for (const e of readdirSync(from, { withFileTypes: true })) {
    if (e.name.endsWith('.logs')) continue;
    const a = join(from, e.name);
    const b = join(to, e.name);
    if (e.isDirectory()) {
      mkdirSync(b);
      copyTree(a, b);
    } else if (e.isFile()) copyFileSync(a, b);
  }
}

/**
 * Where worlds live: tmpfs when the machine has one (a world is hundreds of small files written and copied; on a
 * busy disk that alone took seconds a sequence), else the temporary folder.
 */
export function worldRoot(): string {
  try {
    return mkdtempSync('/dev/shm/interlock-model-');
  } catch {
    return mkdtempSync(join(tmpdir(), 'interlock-model-'));
  }
}

export class CliWorld {
  readonly dir: string;
  graphVersion = 0;
  /** The run a person looks at: the main run, then the fork of it a rerun-from made. */
  current = MAIN_RUN;
  spends = 0;
  /** The page `interlock ui` serves for this folder, once asked for. */
  ui?: RunningUi;
  /** What \`status --json\` said of each journal after each command: file → \`<graph version> <events>\` → state. */
  readonly seen = new Map<string, Map<string, string>>();
  /** The world as the last check saw it (model-checks.ts). */
  checked?: string;
  /** A check saw a node wait with someone's approval given (so the faces were compared on who approved it). */
  sawApproval = false;

  constructor(root: string, dir?: string) {
    this.dir = dir ?? mkdtempSync(join(root, 'w-'));
    if (dir) return;
    this.write('graph.yml', graphText(0));
    this.write('spend.yml', SPEND_GRAPH);
    this.write('step.sh', STEP);
    this.write('agent.sh', AGENT);
    chmodSync(this.path('step.sh'), 0o755);
    chmodSync(this.path('agent.sh'), 0o755);
    // A small cap: b's $1 an attempt reaches it within a sequence (the run's own retries, approvals and forks), so
    // random commands meet the daily cap, and what comes after it, without a command made for it.
    this.write('.github/interlock.yml', `budget: { daily_usd: ${DAILY_CAP} }\n`);
    this.write('effects.log', '');
    for (const n of NODES) this.outcome(n, 'pass');
    this.outcome('s', 'pass');
    this.write('ctl/cost-s', '12');
    // The node's user (isolation on, as root) appends to the log and writes out/ through the workspace's grant.
    chmodSync(this.path('effects.log'), 0o666);
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  write(name: string, text: string): void {
    mkdirSync(join(this.path(name), '..'), { recursive: true });
    writeFileSync(this.path(name), text);
  }

  read(name: string): string | undefined {
    try {
      return readFileSync(this.path(name), 'utf8');
    } catch {
      return undefined;
    }
  }

  /** What the node's next attempt does: pass its checks, or fail. */
  outcome(node: string, o: 'pass' | 'fail'): void {
    this.write(`ctl/${node}`, o);
  }

  /** What the agent of `b` reports it spent on its next attempts. */
  cost(usd: number): void {
    this.write('ctl/cost-b', String(usd));
  }

  /** A fault on purpose: each attempt's side effect happens twice (the effects check must see it). */
  doubleEffects(): void {
    this.write('step.sh', STEP.replace(/^(echo .*EFFECTS")$/m, '$1\n$1'));
  }

  /** A person edits the graph (its hash changes; its nodes stay). */
  changeGraph(): void {
    this.graphVersion++;
    this.write('graph.yml', graphText(this.graphVersion));
  }

  env(): NodeJS.ProcessEnv {
    const base = { ...process.env };
    for (const k of Object.keys(base)) if (k.startsWith('INTERLOCK_')) delete base[k];
    return { ...base, EFFECTS: this.path('effects.log'), INTERLOCK_WRITE_INTERVAL_MS: '0' };
  }

  /** `interlock <args>` in this process, as `dist/cli.js` runs it. */
  async cli(args: string[]): Promise<Call> {
    let out = '';
    let err = '';
    const io = {
      out: (t: string) => {
        out += t;
      },
      err: (t: string) => {
        err += t;
      },
      cwd: this.dir,
      env: this.env(),
    };
    try {
      const code = await main(args, io);
      return { args, code, out, err };
    } catch (e) {
      const threw = (e as Error)?.stack ?? String(e);
      return { args, code: 1, out, err: `${err}interlock: unexpected error: ${threw}\n`, threw };
    }
  }

  /** `node dist/cli.js <args>` as a child process, SIGKILLed by itself at `failpoint` when it gets there. */
  bundle(args: string[], failpoint: string): Promise<Call> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, ...args], {
        cwd: this.dir,
        env: { ...this.env(), INTERLOCK_FAILPOINTS: failpoint },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (b: Buffer) => {
        out += b.toString('utf8');
      });
      child.stderr.on('data', (b: Buffer) => {
        err += b.toString('utf8');
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('error', reject);
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ args, code: code ?? 137, out, err, killed: signal === 'SIGKILL' });
      });
    });
  }

  /** Every journal in the folder, by its path under `.interlock/runs/`, byte for byte. */
  journals(): Map<string, string> {
    const root = this.path('.interlock/runs');
    const out = new Map<string, string>();
    const walk = (d: string) => {
      if (!existsSync(d)) return;
      for (const e of readdirSync(d)) {
        const p = join(d, e);
        if (statSync(p).isDirectory()) walk(p);
        else if (e.endsWith('.json') && !e.endsWith('.live.json'))
          out.set(relative(root, p), readFileSync(p, 'utf8'));
      }
    };
    walk(root);
    return out;
  }

  /** A copy of the folder (attempts' logs left out), to try a command on without touching this one. */
  scratch(): CliWorld {
    const dir = mkdtempSync(`${this.dir}-try-`);
    copyTree(this.dir, dir);
    const w = new CliWorld('', dir);
    w.current = this.current;
    w.graphVersion = this.graphVersion;
    return w;
  }

  async cleanup(): Promise<void> {
    await this.ui?.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
