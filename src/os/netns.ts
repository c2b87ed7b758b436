/**
 * A network namespace for one script of a node with `network:` (issue 27): `unshare --net` (as root, or through
 * passwordless sudo) gives it a loopback of its own and nothing else: no other interface, no route, no DNS. A
 * relay, started as root inside the namespace before the script, brings the loopback up, listens on
 * 127.0.0.1:<port> for the proxy and for each host-loopback port passed through, and pipes each connection to a
 * Unix socket of this process (src/os/proxies/egress-proxy.ts), which decides. The relay then starts the script as the
 * node user (or, with none, as this process's user without capabilities), so the script can neither kill nor
 * replace it, nor leave the namespace; and were the relay gone, the script would have no way out at all.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EgressChannel } from './proxies/egress-proxy.js';

const quiet = { stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'], encoding: 'utf8' as const };
/** The PATH the relay runs with: the namespace's own tools, nothing from the node's environment. */
const SAFE_PATH = '/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The relay, run as `node -e RELAY <ip> <env file> <port>=<socket>... -- <command...>`: the loopback up, a
 * listener per port (each connection piped to its socket), then the command with the environment of the file
 * (read, then deleted), its exit status passed on and the signals this process gets forwarded to it.
 */
const RELAY = `'use strict';
const net = require('net'), fs = require('fs'), cp = require('child_process');
const [ip, envFile, ...rest] = process.argv.slice(1);
const cut = rest.indexOf('--');
const specs = rest.slice(0, cut), command = rest.slice(cut + 1);
const die = (m) => { process.stderr.write('interlock: ' + m + '\\n'); process.exit(125); };
const env = {};
for (const kv of fs.readFileSync(envFile, 'utf8').split('\\0')) { const i = kv.indexOf('='); if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1); }
fs.rmSync(envFile, { force: true });
try { cp.execFileSync(ip, ['link', 'set', 'lo', 'up'], { stdio: 'ignore' }); } catch (e) { die('the network namespace has no loopback: ' + e.message); }
const start = () => {
  const c = cp.spawn(command[0], command.slice(1), { stdio: 'inherit', env });
  for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => c.kill(s));
  c.on('error', (e) => die('the command could not start: ' + e.message));
  c.on('exit', (code, sig) => { if (sig) { process.removeAllListeners(sig); process.kill(process.pid, sig); } else process.exit(code === null ? 1 : code); });
};
let waiting = specs.length;
for (const spec of specs) {
  const at = spec.indexOf('='), port = Number(spec.slice(0, at)), path = spec.slice(at + 1);
  const server = net.createServer({ noDelay: true }, (c) => {
    const u = net.connect(path);
    c.pipe(u); u.pipe(c);
    const end = () => { c.destroy(); u.destroy(); };
    c.on('error', end); u.on('error', end);
  });
  server.on('error', (e) => die('the relay cannot listen on 127.0.0.1:' + port + ': ' + e.message));
  server.listen(port, '127.0.0.1', () => { if (--waiting === 0) start(); });
}
if (waiting === 0) start();
`;

function tool(name: string): string | undefined {
  return ['/usr/sbin', '/usr/bin', '/sbin', '/bin'].map((d) => join(d, name)).find((p) => existsSync(p));
}

/** How this process makes a namespace: it is root, or it has passwordless sudo. */
type Via = 'root' | 'sudo';
let probed: { via: Via; ip: string } | { why: string } | undefined;

function tries(file: string, args: string[]): string | undefined {
  try {
    execFileSync(file, args, quiet);
    return undefined;
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    return (err.stderr || err.message).trim().split('\n')[0];
  }
}

/** Whether a namespace can be made here, and how; tried once, with `unshare --net` itself. */
function probe(): { via: Via; ip: string } | { why: string } {
  if (probed) return probed;
  const missing = ['unshare', 'setpriv', 'ip'].filter((t) => !tool(t));
  if (process.platform !== 'linux') probed = { why: 'network namespaces are Linux only' };
  else if (missing.length)
    probed = { why: `${missing.join(', ')} not found (util-linux and iproute2 give them)` };
  else if (process.getuid?.() === 0) {
    const failed = tries(tool('unshare')!, ['--net', 'true']);
    probed = failed ? { why: `unshare --net failed: ${failed}` } : { via: 'root', ip: tool('ip')! };
  } else if (tries('sudo', ['-n', 'true']) !== undefined)
    probed = { why: 'this process is not root and has no passwordless sudo' };
  else {
    const failed = tries('sudo', ['-n', tool('unshare')!, '--net', 'true']);
    probed = failed ? { why: `sudo unshare --net failed: ${failed}` } : { via: 'sudo', ip: tool('ip')! };
  }
  return probed;
}

/** Why no network namespace can be made here (a node with `network:` then fails before it runs); undefined: it can. */
export function netnsProblem(): string | undefined {
  const p = probe();
  return 'why' in p ? p.why : undefined;
}

/** A random port for the proxy inside the namespace, clear of the ports passed through. */
export function innerProxyPort(passPorts: readonly number[]): number {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 40000);
    if (!passPorts.includes(port)) return port;
  }
}

/** The command that runs `argv` (a bash command line) with `env` in a namespace of its own, as `ids` (else as this process's user, without capabilities). */
export function namespacedCommand(opts: {
  argv: string[];
  env: NodeJS.ProcessEnv;
  ids?: { uid: number; gid: number };
  channel: EgressChannel;
  proxyPort: number;
}): { file: string; args: string[]; env: NodeJS.ProcessEnv } {
  const p = probe();
  if ('why' in p) throw new Error(`no network namespace can be made: ${p.why}`);
  const envFile = join(opts.channel.dir, 'env');
  const pairs = Object.entries(opts.env).filter(([, v]) => v !== undefined && !v.includes('\0'));
  writeFileSync(envFile, pairs.map(([k, v]) => `${k}=${v}\0`).join(''), { mode: 0o600 });
  const self = { uid: process.getuid!(), gid: process.getgid!() };
  const ids = opts.ids ?? (self.uid === 0 ? undefined : self);
  // no_new_privs: no setuid program (sudo, a setcap ping) gives the script back what it was denied.
  const as = ids
    ? [`--reuid=${ids.uid}`, `--regid=${ids.gid}`, '--clear-groups', '--no-new-privs']
    : ['--bounding-set=-all', '--inh-caps=-all', '--no-new-privs'];
  const specs = [
    `${opts.proxyPort}=${opts.channel.proxySocket}`,
    ...[...opts.channel.portSockets].map(([port, path]) => `${port}=${path}`),
  ];
  const relay = [process.execPath, '-e', RELAY, p.ip, envFile, ...specs, '--', tool('setpriv')!, ...as, '--'];
  const outer = ['env', '-i', `PATH=${SAFE_PATH}`, tool('unshare')!, '--net', '--', ...relay, ...opts.argv];
  if (p.via === 'root') return { file: tool('env')!, args: outer.slice(1), env: { PATH: SAFE_PATH } };
  return { file: 'sudo', args: ['-n', '--', ...outer], env: { PATH: opts.env.PATH ?? SAFE_PATH } };
}
