/**
 * Two local hosts for the egress tests: an HTTP server on 127.0.0.2 (the one a graph allows) and one on
 * 127.0.0.3 (the one it does not), each counting the requests and connections it saw, so a test can say that a
 * refused host was never reached at all. Loopback addresses other than 127.0.0.1 need no setup on Linux.
 */
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';

export interface EgressHost {
  ip: string;
  port: number;
  url: string;
  /** Every request it answered: method, path, Host header. */
  requests: { method: string; path: string; host: string; at: number }[];
  /** TCP connections it accepted (a tunnel that sent no HTTP counts too). */
  connections: number;
  close: () => Promise<void>;
}

/** An HTTP server on `ip` that answers `hello from <ip>` (or a redirect, for `/redirect?to=<url>`). */
export function startEgressHost(ip: string): Promise<EgressHost> {
  const sockets = new Set<Socket>();
  const host: Omit<EgressHost, 'port' | 'url' | 'close'> = { ip, requests: [], connections: 0 };
  const server: Server = createServer((req, res) => {
    host.requests.push({
      method: req.method ?? '',
      path: req.url ?? '',
      host: req.headers.host ?? '',
      at: Date.now(),
    });
    const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
    if (to) {
      res.writeHead(302, { location: to });
      res.end();
      return;
    }
    res.end(`hello from ${ip}\n`);
  });
  server.on('connection', (s) => {
    host.connections += 1;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, ip, () => {
      const port = (server.address() as { port: number }).port;
      resolve({
        ...host,
        get requests() {
          return host.requests;
        },
        get connections() {
          return host.connections;
        },
        port,
        url: `http://${ip.includes(':') ? `[${ip}]` : ip}:${port}`,
        close: () =>
          new Promise<void>((r) => {
            for (const s of sockets) s.destroy();
            server.close(() => r());
          }),
      });
    });
  });
}
