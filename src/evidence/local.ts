import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Check } from '../graph/schema/check.js';
import type { Evidence } from '../journal/events/fields.js';
import { runScript, type ScriptNetwork } from '../os/exec.js';
import { restoreCheckout } from '../os/git/git-guard.js';
import { childProcess } from '../os/lazy.js';
import type { CredentialGrants } from '../os/node-user/node-credentials.js';
import { MAX_CHECKED_FILE, NodeFileError, readCheckoutFile } from '../os/node-user/node-files.js';
import { OutputExcerpt } from '../render/excerpt.js';

/** Where one evidence command's output goes besides its excerpt: a log file, the live log. */
export interface CommandOutput {
  /** A file that keeps the whole output. */
  logFile?: string;
  /** Live output (the Action's step log, in a group of its own). */
  echo?: (chunk: Buffer) => void;
  /** Called once the command has ended. */
  end?: () => void;
  /** Where a person finds the whole output, as recorded with a failure (`log`). */
  where?: string;
}

export interface CheckInput {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Which node may have which of the step's credentials: a command check runs under the node's grants. */
  grants: CredentialGrants;
  outputs: Record<string, string>;
  /** The HEAD commit when the attempt was dispatched, if the working directory is a git repository. */
  gitBase?: string;
  dispatchedAt: string;
  /** Where each evidence command's output goes, by the check's name (`command npm test`). */
  commandOutput?: (check: string) => CommandOutput | undefined;
  /** A node with `network:`: its commands run in a namespace whose only way out is the egress proxy. */
  network?: ScriptNetwork;
}

const clip = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n)}…` : s);

/**
 * The text of a `file` check's file, which a node may have replaced: a relative path whose link leads out of the
 * workspace is not read (a node could aim it at /proc/self/environ), nor a FIFO, a device or a file past the bound.
 */
function readChecked(cwd: string, given: string, path: string): string {
  if (!given.startsWith('/')) {
    const real = realpathSync(path);
    const root = realpathSync(cwd);
    if (real !== root && !real.startsWith(`${root}/`))
      throw new NodeFileError(
        given,
        `is a link to ${real}, outside the workspace; interlock does not read it`,
      );
  }
  return readCheckoutFile(path, given, MAX_CHECKED_FILE);
}

/** Runs one local evidence check and says what it observed. */
export async function runLocalCheck(check: Check, input: CheckInput): Promise<Evidence> {
  if ('file' in check) {
    const path = resolve(input.cwd, check.file);
    let size: number;
    try {
      size = statSync(path).size;
    } catch {
      return { check: `file ${check.file}`, passed: false, observed: `${check.file} does not exist` };
    }
    if (check.contains === undefined)
      return { check: `file ${check.file}`, passed: true, observed: `${check.file} exists (${size} bytes)` };
    const name = `file ${check.file} contains /${check.contains}/`;
    let text: string;
    try {
      text = readChecked(input.cwd, check.file, path);
    } catch (e) {
      if (!(e instanceof NodeFileError)) throw e;
      return { check: name, passed: false, observed: e.message };
    }
    const m = new RegExp(check.contains, 'm').exec(text);
    const line = m ? text.slice(0, m.index).split('\n').length : 0;
    return {
      check: name,
      passed: m !== null,
      observed: m
        ? `matched "${clip(m[0], 80)}" at line ${line}`
        : `${check.file} (${size} bytes) has no match`,
    };
  }
  if ('command' in check) return commandCheck(check.command, check.timeout_minutes, input);
  if ('output' in check) {
    const value = input.outputs[check.output];
    if (value === undefined)
      return {
        check: `output ${check.output}`,
        passed: false,
        observed: `output "${check.output}" was not set`,
      };
    const passed = check.matches === undefined || new RegExp(check.matches).test(value);
    return {
      check: `output ${check.output}${check.matches ? ` matches /${check.matches}/` : ''}`,
      passed,
      observed: `${check.output}=${clip(value, 120)}`,
    };
  }
  if ('git' in check) return gitCheck(check.git, input);
  const kind = Object.keys(check)[0] ?? 'check';
  return {
    check: kind,
    passed: false,
    observed: `a ${kind} check needs the GitHub API: it is answered when the node runs in the Action; the CLI cannot check it`,
  };
}

/** Runs an evidence command; a failed one is recorded with the first error line, an excerpt, and its log. */
async function commandCheck(
  command: string,
  timeoutMinutes: number | undefined,
  input: CheckInput,
): Promise<Evidence> {
  const name = `command ${clip(command, 80)}`;
  const out = input.commandOutput?.(name);
  const excerpt = new OutputExcerpt();
  const r = await runScript({
    script: command,
    env: input.env,
    grants: input.grants,
    cwd: input.cwd,
    timeoutMs: (timeoutMinutes ?? 10) * 60_000,
    echo: (chunk) => {
      excerpt.push(chunk);
      out?.echo?.(chunk);
    },
    ...(out?.logFile ? { logFile: out.logFile } : {}),
    ...(input.network ? { network: input.network } : {}),
  }).finally(() => out?.end?.());
  const how = r.timedOut ? 'timed out' : r.exitCode === null ? `killed by ${r.signal}` : `exit ${r.exitCode}`;
  const passed = r.exitCode === 0 && !r.timedOut && !r.survivors;
  const e = excerpt.finish();
  const said = r.survivors ?? e?.first_error ?? e?.last_line;
  return {
    check: name,
    passed,
    observed: `${how}${said ? `: ${clip(said, 200)}` : ''}`,
    ...(!passed && e ? { excerpt: e.text } : {}),
    ...(!passed && out?.where ? { log: out.where } : {}),
  };
}

/** True for the kinds this module answers without the network. */
export function isLocalCheck(check: Check): boolean {
  return 'file' in check || 'command' in check || 'output' in check || 'git' in check;
}

/**
 * interlock's own git: what a node changed in .git/ is put back first (src/os/git/git-guard.ts), and the commands it
 * could name are off for this call besides (no fsmonitor, no hooks, no pager).
 */
function git(cwd: string, args: string[]): string {
  restoreCheckout();
  const safe = ['--no-pager', '-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null'];
  return childProcess()
    .execFileSync('git', [...safe, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
    .trim();
}

/**
 * Whether git could find a repository from `cwd`: `GIT_DIR` is set, or `cwd` or a directory above it holds a
 * `.git` file (a worktree's or a submodule's link), a `.git` folder with a `HEAD` (a repository: an empty `.git`
 * folder, such as a sandbox's mount point, is none, and git passes over it) or a `HEAD` (a bare repository). Where
 * none does, `git rev-parse` can only fail, and is not started (a process per dispatch, in workspaces that are not
 * checkouts).
 */
function mayBeRepository(cwd: string): boolean {
  if (process.env.GIT_DIR) return true;
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    const linked = existsSync(dotGit) && !statSync(dotGit, { throwIfNoEntry: false })?.isDirectory();
    if (linked || existsSync(join(dotGit, 'HEAD')) || existsSync(join(dir, 'HEAD'))) return true;
    if (dirname(dir) === dir) return false;
  }
}

/** The HEAD commit of the working directory, or undefined outside a git repository. */
export function gitHead(cwd: string): string | undefined {
  if (!mayBeRepository(cwd)) return undefined;
  try {
    return git(cwd, ['rev-parse', 'HEAD']);
  } catch {
    return undefined;
  }
}

function gitCheck(
  spec: { branch?: string | undefined; min_commits?: number | undefined; message?: string | undefined },
  input: CheckInput,
): Evidence {
  const ref = spec.branch ?? 'HEAD';
  const name = `git ${ref}${spec.message ? ` message /${spec.message}/` : ''}`;
  const min = spec.min_commits ?? 1;
  try {
    const tip = git(input.cwd, ['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`]);
    const range = input.gitBase ? [`${input.gitBase}..${tip}`] : [`--since=${input.dispatchedAt}`, tip];
    const log = git(input.cwd, ['log', '--format=%H %s', ...range]);
    const commits = log ? log.split('\n') : [];
    const matching = spec.message
      ? commits.filter((c) => new RegExp(spec.message!).test(c.slice(41)))
      : commits;
    const passed = matching.length >= min;
    return {
      check: name,
      passed,
      observed: `${commits.length} new commit(s) on ${ref} (tip ${tip.slice(0, 12)})${spec.message ? `, ${matching.length} matching` : ''}${
        matching[0] ? `: ${clip(matching[0].slice(0, 12) + matching[0].slice(40), 100)}` : ''
      }`,
    };
  } catch (e) {
    return {
      check: name,
      passed: false,
      observed: `git failed: ${clip(String((e as { stderr?: string }).stderr || (e as Error).message))}`,
    };
  }
}
