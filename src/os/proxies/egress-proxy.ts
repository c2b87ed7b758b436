/**
 * interlock's forward proxy for a node with `network:` (issue 27): it runs in this process, outside the node's
 * network namespace, and listens on a filesystem Unix socket (those cross namespaces) in a folder only this
 * process's user can enter. It takes `CONNECT host:port` and absolute-URI HTTP requests, asks the caller's rules
 * whether the host is allowed (the rules live in src/protocol/attempt/egress.ts), resolves names itself once, asks which of
 * the answers it may connect to (never a loopback, link-local or private one unless listed) and connects to that
 * very address, and refuses the rest with a 403 that names the host and the fix. It never follows a redirect: the client's next request is a
 * request of its own, asked about again. Each script gets a channel of its own, closed with every connection it
 * holds when the script ends; the folder is made once per process and removed when it exits.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dns, http, net } from '../lazy.js';

/** What the proxy asks its caller about each request; no rule is decided here. */
export interface EgressRules {
  /** The host as journaled, and whether it may be reached on this port. */
  decide: (host: string, port: number) => { host: string; allowed: boolean };
  /** The body of the 403 a refused request gets. */
  refusal: (host: string, port: number) => string;
  /** Which of the addresses an allowed host resolved to is connected to, or the body of the 403 when none. */
  pick: (
    host: string,
    port: number,
    addresses: readonly string[],
  ) => { address: string } | { refusal: string };
  /** Called once per request, allowed or refused. */
  record: (host: string, port: number, allowed: boolean) => void;
}

/** One script's way out: the proxy's socket, one socket per host-loopback port passed through, and its end. */
export interface EgressChannel {
  dir: string;
  proxySocket: string;
  /** Host-loopback port to the socket that reaches it. */
  portSockets: Map<number, string>;
  /** Stops listening and cuts every connection the script still holds. */
  close: () => Promise<void>;
}

let root: string | undefined;

/** The longest socket path a channel makes under its root, beyond the root itself (`/c-XXXXXX/port-65535.sock`). */
const SOCKET_TAIL = 27;

/**
 * The process's folder for the channels' sockets (mode 0700), made on first use and removed at exit: in the temp
 * folder, or in /tmp where that is too deep for a Unix socket's path (at most 107 bytes).
 */
function egressRoot(): string {
  if (root) return root;
  const prefix = `interlock-egress-${process.pid}-XXXXXX`;
  const base = join(tmpdir(), prefix).length + SOCKET_TAIL <= 107 ? tmpdir() : '/tmp';
  const dir = mkdtempSync(join(base, `interlock-egress-${process.pid}-`));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  root = dir;
  return dir;
}

/**
 * Removes the socket folders of processes that are gone (a main step killed mid-node): their sockets answer
 * nobody, but the folder stays until someone removes it. The post step calls this; a live process's stays.
 */
export function removeStaleEgressFolders(alive: (pid: number) => boolean): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(tmpdir())) {
    const pid = /^interlock-egress-(\d+)-/.exec(name)?.[1];
    if (!pid || Number(pid) === process.pid || alive(Number(pid))) continue;
    rmSync(join(tmpdir(), name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/** Hop-by-hop headers, which a proxy does not pass on (RFC 9110 7.6.1), and the proxy's own. */
const HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function endToEnd(headers: IncomingMessage['headers']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP.has(k)) out[k] = v;
  return out;
}

/** The addresses a host stands for: a literal itself, a name resolved here, once (the node has no DNS of its own). */
async function addressesOf(host: string): Promise<string[]> {
  if (net().isIP(host)) return [host];
  return (await dns().lookup(host, { all: true, verbatim: true })).map((a) => a.address);
}

type Target = { address: string; host: string } | { status: number; body: string };

/**
 * Where one request may go: the host allowed, resolved once, and the one address the rules picked of its answers;
 * or the status and body of its refusal. Recorded once, allowed or refused.
 */
async function target(rules: EgressRules, asked: string, port: number): Promise<Target> {
  const d = rules.decide(asked, port);
  if (!d.allowed) {
    rules.record(d.host, port, false);
    return { status: 403, body: rules.refusal(d.host, port) };
  }
  let addresses: string[];
  try {
    addresses = await addressesOf(d.host);
  } catch (e) {
    rules.record(d.host, port, true);
    return { status: 502, body: `interlock: ${d.host} does not resolve (${(e as Error).message})\n` };
  }
  const picked = rules.pick(d.host, port, addresses);
  rules.record(d.host, port, 'address' in picked);
  return 'address' in picked
    ? { address: picked.address, host: d.host }
    : { status: 403, body: picked.refusal };
}

const STATUS: Record<number, string> = { 403: '403 Forbidden', 502: '502 Bad Gateway' };

/** `host:port` of a CONNECT (`[v6]:port` too). */
function connectTarget(target: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(target);
  return m ? { host: (m[1] ?? m[2])!, port: Number(m[3]) } : undefined;
}

/** Everything one channel holds open, so its close can cut it. */
class Held {
  readonly sockets = new Set<Socket>();
  hold(s: Socket): Socket {
    this.sockets.add(s);
    s.once('close', () => this.sockets.delete(s));
    return s;
  }
}

function refuse(socket: Socket, status: string, body: string): void {
  socket.end(
    `HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

async function onConnect(rules: EgressRules, held: Held, req: IncomingMessage, client: Socket, head: Buffer) {
  held.hold(client);
  client.on('error', () => client.destroy());
  const t = connectTarget(req.url ?? '');
  if (!t) return refuse(client, '400 Bad Request', `interlock: CONNECT needs host:port, not "${req.url}"\n`);
  const d = await target(rules, t.host, t.port);
  if ('status' in d) return refuse(client, STATUS[d.status]!, d.body);
  const upstream = held.hold(net().connect({ port: t.port, host: d.address, noDelay: true }));
  let connected = false;
  upstream.once('connect', () => {
    connected = true;
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  // Before the tunnel stands the client is told why (a 502); after, the tunnel just ends.
  upstream.on('error', (e) => {
    if (!connected) refuse(client, '502 Bad Gateway', `interlock: ${d.host}:${t.port}: ${e.message}\n`);
    else client.destroy();
  });
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => connected && client.destroy());
}

async function onRequest(rules: EgressRules, held: Held, req: IncomingMessage, res: ServerResponse) {
  const fail = (status: number, body: string) => {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
    res.end(body);
  };
  let url: URL;
  try {
    url = new URL(req.url ?? '');
  } catch {
    return fail(400, "interlock's egress proxy takes absolute-URI requests (http://host/path) and CONNECT\n");
  }
  if (url.protocol !== 'http:')
    return fail(400, `interlock: ${url.protocol} requests go through CONNECT, not as an absolute URI\n`);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port ? Number(url.port) : 80;
  const d = await target(rules, host, port);
  if ('status' in d) return fail(d.status, d.body);
  // The Host the upstream sees is the URI's own: a forged Host header names nothing the node may reach.
  const headers = { ...endToEnd(req.headers), host: url.host };
  const up = http().request({
    host: d.address,
    port,
    method: req.method,
    path: `${url.pathname}${url.search}`,
    headers,
    setHost: false,
    agent: false,
  });
  up.on('socket', (s) => held.hold(s));
  up.on('response', (r) => {
    res.writeHead(r.statusCode ?? 502, endToEnd(r.headers));
    r.pipe(res);
  });
  up.on('error', (e) => (res.headersSent ? res.destroy() : fail(502, `interlock: ${e.message}\n`)));
  req.pipe(up);
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Opens one script's channel: the proxy under `rules`, and a socket to each host-loopback port of `passPorts`. */
export async function openEgressChannel(
  rules: EgressRules,
  passPorts: readonly number[],
): Promise<EgressChannel> {
  const held = new Held();
  const servers: Server[] = [];
  let dir: string | undefined;
  try {
    dir = mkdtempSync(join(egressRoot(), 'c-'));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const made = dir;
    const proxy = http().createServer((req, res) => void onRequest(rules, held, req, res));
    proxy.on('connect', (req, socket, head) => void onConnect(rules, held, req, socket as Socket, head));
    proxy.on('connection', (s) => held.hold(s));
    const proxySocket = join(dir, 'proxy.sock');
    servers.push(proxy);
    await listen(proxy, proxySocket);
    const portSockets = new Map<number, string>();
    for (const port of new Set(passPorts)) {
      const pass = net().createServer((c) => {
        held.hold(c);
        const u = held.hold(net().connect(port, '127.0.0.1'));
        c.pipe(u);
        u.pipe(c);
        const end = () => {
          c.destroy();
          u.destroy();
        };
        c.on('error', end);
        u.on('error', end);
      });
      const path = join(dir, `port-${port}.sock`);
      servers.push(pass);
      await listen(pass, path);
      portSockets.set(port, path);
    }
    const close = async () => {
      for (const s of held.sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
      rmSync(made, { recursive: true, force: true });
    };
    return { dir: made, proxySocket, portSockets, close };
  } catch (e) {
    for (const s of servers) s.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    throw new Error(`interlock's egress proxy could not start: ${(e as Error).message}`);
  }
}
