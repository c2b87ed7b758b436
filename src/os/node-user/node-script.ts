/**
 * How one script (a node's command, a `command` check) is started as the node user: a home of its own, made for
 * it and removed after it; the checkout safe for its git alone; the runner's git identity; and through sudo, the
 * environment from a file rather than through sudo's env_reset.
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fstatSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { namespacedCommand } from '../netns.js';
import type { EgressChannel } from '../proxies/egress-proxy.js';
import { geminiSettingsInHome, geminiSettingsInSession, wantsGeminiSettings } from './gemini-home.js';
import { type CredentialGrants, withoutWithheldCredentials } from './node-credentials.js';
import { type NodeUser, nodeUser, removeTree } from './node-user.js';

const quiet = { stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'], encoding: 'utf8' as const };

/** How runScript starts a script: the command, its options, and what to clean up once it has exited. */
interface ScriptCommand {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  ids?: { uid: number; gid: number };
  /** Removes what was made for this script alone (its home). */
  done: () => void;
}

/**
 * Git as the node user: the checkout belongs to the runner's user, which git refuses ("dubious ownership")
 * unless the directory is named safe in a protected scope. The command scope (`GIT_CONFIG_COUNT`) names it for
 * this process and its children only: never `*`, never system-wide, never in the runner user's own config.
 */
function withSafeDirectory(env: NodeJS.ProcessEnv, workspace: string): NodeJS.ProcessEnv {
  const n = Number(env.GIT_CONFIG_COUNT ?? 0);
  const base = Number.isInteger(n) && n >= 0 ? n : 0;
  return {
    ...env,
    GIT_CONFIG_COUNT: String(base + 1),
    [`GIT_CONFIG_KEY_${base}`]: 'safe.directory',
    [`GIT_CONFIG_VALUE_${base}`]: workspace,
  };
}

let identity: string | undefined;

/**
 * The runner user's own git identity (`git config --global user.*`, where a workflow's `git config --global`
 * puts it), as a global config for the node's home: a node has a home of its own, so it would lose it, while an
 * identity the repository's config sets still wins over it. Read once, when the first script is started.
 */
function runnerIdentity(): string {
  if (identity !== undefined) return identity;
  identity = '';
  try {
    const out = execFileSync(
      'git',
      ['config', '--global', '--null', '--get-regexp', '^user\\.(name|email)$'],
      { ...quiet, cwd: '/' },
    );
    const pairs = out
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('\n')), kv.slice(kv.indexOf('\n') + 1)] as const)
      .filter(([, v]) => !/[\n"\\]/.test(v));
    if (pairs.length) identity = `[user]\n${pairs.map(([k, v]) => `\t${k.slice(5)} = "${v}"\n`).join('')}`;
  } catch {
    // no git, or no identity set: commits say so themselves
  }
  return identity;
}

/**
 * Through sudo the environment is read from a file the node user alone can read, not passed by sudo: sudo's
 * env_reset replaces PATH with its secure_path and drops LD_*, PYTHONPATH, JAVA_TOOL_OPTIONS and more even with
 * -E, so a tool only on the step's PATH would not be found. The file is NUL-separated NAME=value pairs; the
 * loader clears what sudo set, exports each pair, deletes the file and starts bash as runScript asks.
 */
const SUDO_LOADER = [
  'f=$1; shift',
  'for v in $(compgen -e); do unset -v "$v" 2>/dev/null || :; done',
  'while IFS= read -r -d "" kv; do export -- "$kv" 2>/dev/null || :; done < "$f"',
  'command -p rm -f -- "$f"',
  'umask 0002',
  'exec bash "$@"',
].join('\n');

/**
 * What of an engine's folder carries over between the nodes of a session: the transcripts, nothing else (`keep`
 * may be a path: each folder on the way keeps only the next name).
 */
export const SESSION_KEEPS: Record<string, { variable: string; keep: string }> = {
  'claude-code': { variable: 'CLAUDE_CONFIG_DIR', keep: 'projects' },
  codex: { variable: 'CODEX_HOME', keep: 'sessions' },
  // Gemini CLI keeps its settings in `.gemini/` and each project's chats in `.gemini/tmp/<project>/chats`.
  gemini: { variable: 'GEMINI_CLI_HOME', keep: '.gemini/tmp' },
  // Copilot CLI keeps each session in `session-state/<id>/`.
  copilot: { variable: 'COPILOT_HOME', keep: 'session-state' },
};

/** A session name interlock makes a folder for (the graph's id pattern, bounded). */
const SESSION_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/**
 * A folder of this process's own at `path` with `mode`: made here, or, when it is there already, opened without
 * following a link and checked to be a folder this process owns; its mode is set through the descriptor, never by
 * path. Anything else in its place (a link, a file, another user's folder) is refused.
 */
function ownFolder(path: string, mode: number): void {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (e) {
    throw new Error(
      `${path} is not a folder (${(e as NodeJS.ErrnoException).code}): interlock does not use it`,
    );
  }
  try {
    const st = fstatSync(fd);
    if (st.uid !== process.getuid?.())
      throw new Error(`${path} belongs to uid ${st.uid}, not to interlock's user: interlock does not use it`);
    fchmodSync(fd, mode);
  } finally {
    closeSync(fd);
  }
}

/**
 * The step's folder of one session's engine files (`<homes>/sessions/<name>/<engine>`, the node user's), made
 * when missing; undefined when nodes do not run isolated or the name or engine is not one interlock knows.
 * `<homes>` and `sessions/` are this process's (the node user may pass, not list, and never write them);
 * `sessions/<name>` is made here and given to the node user; the engine's folder inside it is made by the node
 * user itself (through sudo, the runner's user cannot look inside it), so a link a node planted there leads only
 * where the node user could write anyway.
 */
export function sessionDir(user: NodeUser, name: string, engine: string): string | undefined {
  if (!SESSION_NAME.test(name) || !SESSION_KEEPS[engine]) return undefined;
  const sessions = join(user.homes, 'sessions');
  const top = join(sessions, name);
  const dir = join(top, engine);
  ownFolder(sessions, 0o711);
  const st = lstatSync(top, { throwIfNoEntry: false });
  if (!st) {
    mkdirSync(top, { mode: 0o700 });
    if (user.via === 'spawn') lchownSync(top, user.uid, user.gid);
    else execFileSync('sudo', ['-n', 'chown', '-h', `${user.uid}:${user.gid}`, top], quiet);
  } else if (!st.isDirectory() || st.isSymbolicLink() || st.uid !== user.uid)
    throw new Error(
      `session "${name}": ${top} is not the folder interlock made for it; interlock does not use it`,
    );
  // The node user makes its engine's folder, refusing a link a node left in its place (exit 3).
  const make = ['sh', '-c', '[ -L "$1" ] && exit 3; exec mkdir -p -m 700 -- "$1"', 'session-dir', dir];
  try {
    if (user.via === 'spawn')
      execFileSync(make[0]!, make.slice(1), { ...quiet, uid: user.uid, gid: user.gid });
    else execFileSync('sudo', ['-n', '-u', user.name, '--', ...make], quiet);
  } catch (e) {
    if ((e as { status?: number }).status === 3)
      throw new Error(
        `session "${name}": ${dir} is a symbolic link, which a node put there; interlock does not use it`,
      );
    throw e;
  }
  return dir;
}

/**
 * An isolated node has a home of its own per script, so an engine's sessions would be gone by the next node. The
 * nodes of one `session:` share a folder of the step's instead (`sessionDir`), and only the transcripts stay in it
 * between scripts: whatever else a node left there (the engine's settings with their hooks, its MCP servers, its
 * config) is removed before the next script starts.
 */
function sessionFolder(
  user: NodeUser,
  env: NodeJS.ProcessEnv,
  grants: CredentialGrants,
): Record<string, string> {
  const engine = SESSION_KEEPS[env.INTERLOCK_ENGINE ?? ''];
  const dir =
    env.INTERLOCK_SESSION && engine
      ? sessionDir(user, env.INTERLOCK_SESSION, env.INTERLOCK_ENGINE!)
      : undefined;
  if (!dir || !engine) return {};
  // The folder is the node user's (0700): find -P neither follows a link nor descends one, nor does rm -rf.
  // A kept name that is a link is not descended into: the next level's find starts at the link and stops there;
  // one that is not there yet leaves nothing deeper to clear.
  let at = dir;
  for (const [i, name] of engine.keep.split('/').entries()) {
    const drop = ['-P', at, '-mindepth', '1', '-maxdepth', '1', '!', '-name', name];
    const find = [...drop, '-exec', 'rm', '-rf', '--', '{}', '+'];
    try {
      if (user.via === 'sudo') execFileSync('sudo', ['-n', 'find', ...find], quiet);
      else execFileSync('find', find, quiet);
    } catch (e) {
      if (i === 0) throw e;
      break;
    }
    at = join(at, name);
  }
  const nodeEnv = withoutWithheldCredentials(env, grants);
  if (env.INTERLOCK_ENGINE === 'gemini') geminiSettingsInSession(user, dir, nodeEnv);
  return { [engine.variable]: dir };
}

/** A script's network namespace (a node with `network:`): its channel to the egress proxy, and the proxy's port inside. */
export interface ScriptNamespace {
  channel: EgressChannel;
  proxyPort: number;
}

/**
 * The command line and spawn options that run `script` as the node user (or as this process's user); with `ns`,
 * inside a network namespace of its own (src/os/netns.ts), started by a relay that passes the environment itself.
 */
export function scriptCommand(
  script: string,
  given: { env: NodeJS.ProcessEnv; grants: CredentialGrants; ns?: ScriptNamespace | undefined },
): ScriptCommand {
  const { env, grants, ns } = given;
  const bash = ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script];
  const user = nodeUser();
  if (!user) {
    const own = withoutWithheldCredentials(env, grants);
    if (!ns) return { file: 'bash', args: bash, env: own, done: () => undefined };
    const inside = { channel: ns.channel, proxyPort: ns.proxyPort };
    return { ...namespacedCommand({ argv: ['bash', ...bash], env: own, ...inside }), done: () => undefined };
  }
  // The attempt's own files were granted once, when interlock made them (src/os/node-user/node-files.ts): never again by
  // path, which a node could have replaced with a link to any file.
  const home = mkdtempSync(join(user.homes, 'home-'));
  const gitconfig = runnerIdentity();
  if (gitconfig) writeFileSync(join(home, '.gitconfig'), gitconfig, { mode: 0o600 });
  const nodeEnv = withSafeDirectory(
    {
      ...withoutWithheldCredentials(env, grants),
      HOME: home,
      USER: user.name,
      LOGNAME: user.name,
      ...sessionFolder(user, env, grants),
    },
    user.workspace,
  );
  // Gemini CLI's home is this fresh one unless a session's folder or the step's own GEMINI_CLI_HOME is.
  const own =
    wantsGeminiSettings(nodeEnv) && !nodeEnv.GEMINI_CLI_HOME ? geminiSettingsInHome(home, nodeEnv) : [];
  const done = () => removeTree(home, user.via);
  // umask 002: what the node creates in the shared workspace stays writable for the runner's user.
  const inner = ['bash', '--noprofile', '--norc', '-c', 'umask 0002 && exec bash "$@"', 'bash', ...bash];
  if (ns) {
    if (user.via === 'sudo')
      execFileSync('sudo', ['-n', 'chown', '-R', '-h', '-P', `${user.uid}:${user.gid}`, home], quiet);
    else
      for (const p of [home, join(home, '.gitconfig'), ...own])
        if (existsSync(p)) lchownSync(p, user.uid, user.gid);
    const ids = { uid: user.uid, gid: user.gid };
    const inside = { channel: ns.channel, proxyPort: ns.proxyPort };
    return { ...namespacedCommand({ argv: inner, env: nodeEnv, ids, ...inside }), done };
  }
  if (user.via === 'sudo') {
    const envFile = join(home, '.interlock-env');
    const pairs = Object.entries(nodeEnv).filter(([, v]) => v !== undefined && !v.includes('\0'));
    writeFileSync(envFile, pairs.map(([k, v]) => `${k}=${v}\0`).join(''), { mode: 0o600 });
    execFileSync('sudo', ['-n', 'chown', '-R', '-h', '-P', `${user.uid}:${user.gid}`, home], quiet);
    const loader = ['bash', '--noprofile', '--norc', '-c', SUDO_LOADER, 'loader', envFile, ...bash];
    // Only what sudo needs to start the loader: the variables themselves are in the file.
    const sudoEnv = { PATH: env.PATH ?? '/usr/bin:/bin' };
    return { file: 'sudo', args: ['-n', '-u', user.name, '--', ...loader], env: sudoEnv, done };
  }
  for (const p of [home, join(home, '.gitconfig'), ...own])
    if (existsSync(p)) lchownSync(p, user.uid, user.gid);
  return { file: inner[0]!, args: inner.slice(1), env: nodeEnv, ids: { uid: user.uid, gid: user.gid }, done };
}
