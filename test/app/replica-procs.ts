// App replicas as an operator runs them: `node dist/app.js` (the bundle `npm start` runs), each its own process,
// behind a round-robin proxy that passes over a replica that refuses connections, as a load balancer does (issue 50).
// Used by test/app/replicas.test.ts and by the maker of the `dispatch-retried` golden journal.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from './page-world.js';
import { appServerEnv, type World } from './world.js';

export const APP = new URL('../../dist/app.js', import.meta.url).pathname;

export interface Replica {
  port: number;
  child: ChildProcess;
  exited: Promise<void>;
}

/** Starts `node dist/app.js` on `port` and resolves once it receives webhooks; its output goes to `log`. */
export async function startReplica(
  env: Record<string, string>,
  port: number,
  log?: string[],
): Promise<Replica> {
  const child = spawn(process.execPath, [APP], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((r) => child.on('close', () => r()));
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const seen = (d: Buffer) => {
      out += d.toString();
      log?.push(d.toString());
      if (/receiving webhooks at/.test(out)) resolve();
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    void exited.then(() => reject(new Error(`the replica exited: ${out}`)));
  });
  return { port, child, exited };
}

/** Round robin over the ports, each request to the next one that accepts a connection; records who served what. */
export function roundRobin(ports: () => number[]): {
  server: Server;
  served: { path: string; port: number }[];
} {
  let next = 0;
  const served: { path: string; port: number }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const list = ports();
      const attempt = (tries: number) => {
        const port = list[next++ % list.length]!;
        const out = request(
          { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent: false },
          (answer) => {
            served.push({ path: req.url ?? '', port });
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        // A replica that refuses the connection is passed over; one that dies holding the request fails it (502).
        out.on('error', (e: NodeJS.ErrnoException) =>
          tries > 1 && e.code === 'ECONNREFUSED'
            ? attempt(tries - 1)
            : res.headersSent
              ? res.destroy()
              : res.writeHead(502).end('the replica died\n'),
        );
        out.end(body);
      };
      attempt(list.length);
    });
  });
  return { server, served };
}

/**
 * Two replicas behind the round-robin proxy `rr` (made to listen here), each killed right after its first journal
 * write of a person's command, whichever the proxy gives the comment to; GitHub's webhooks go to the proxy. Whoever
 * journaled an approval has 3 s to dispatch, and a copy waits that long before it looks. Returns the environment
 * without the failpoint, for a replica started again.
 */
export async function armedPair(
  world: World,
  opts: { secret: string; rr: { server: Server }; replicas: Map<number, Replica>; log?: string[] },
  extra: Record<string, string> = {},
): Promise<Record<string, string>> {
  await new Promise<void>((r) => opts.rr.server.listen(0, '127.0.0.1', () => r()));
  const env = {
    ...appServerEnv(world, opts.secret),
    INTERLOCK_REDELIVER: 'on',
    INTERLOCK_ANSWER_MS: '1000',
    INTERLOCK_WRITE_INTERVAL_MS: '0',
    INTERLOCK_DISPATCH_LEASE_MS: '3000',
    ...extra,
  };
  const armed = { ...env, INTERLOCK_FAILPOINTS: 'after-person-command-write' };
  for (const port of [await freePort(), await freePort()])
    opts.replicas.set(port, await startReplica(armed, port, opts.log));
  world.server.state.webhooks.target = {
    url: `http://127.0.0.1:${(opts.rr.server.address() as AddressInfo).port}/api/github/webhooks`,
    secret: opts.secret,
  };
  return env;
}
