// The egress proxy itself (issue 34), through its socket as a node's tools reach it: an allowed name that resolves
// to a loopback address is refused unless that address is listed too, and the proxy connects to the very address
// the rules picked, looking the name up no second time (so a second answer cannot rebind it). `localhost` is the
// name: /etc/hosts makes it 127.0.0.1 here without any DNS.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EgressChannel,
  type EgressRules,
  openEgressChannel,
} from '../../src/os/proxies/egress-proxy.js';
import {
  ConnectionTally,
  egressDecision,
  egressPick,
  egressRefusal,
} from '../../src/protocol/attempt/egress.js';
import { type EgressHost, startEgressHost } from '../support/egress-hosts.js';

let loop: EgressHost;
let other: EgressHost;
beforeAll(async () => {
  loop = await startEgressHost('127.0.0.1');
  other = await startEgressHost('127.0.0.2');
});
afterAll(async () => {
  await loop.close();
  await other.close();
});

function rules(allow: string[], tally: ConnectionTally): EgressRules {
  return {
    decide: (h, p) => egressDecision(allow, h, p),
    refusal: (h, p) => egressRefusal('n', h, p),
    pick: (h, p, a) => egressPick('n', allow, h, p, a),
    record: (h, p, ok) => tally.add(h, p, ok),
  };
}

/** An absolute-URI GET through the channel's socket, or a CONNECT when `connect`: the status and body. */
function viaProxy(
  ch: EgressChannel,
  url: string,
  connect = false,
): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({
      socketPath: ch.proxySocket,
      method: connect ? 'CONNECT' : 'GET',
      path: connect ? u.host : url,
      headers: { host: u.host },
    });
    const read = (status: number, stream: NodeJS.ReadableStream) => {
      let body = '';
      stream.on('data', (c: Buffer) => {
        body += c.toString();
      });
      stream.on('end', () => resolve({ status, body }));
    };
    req.on('response', (res) => read(res.statusCode ?? 0, res));
    req.on('connect', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: '' });
    });
    req.on('error', reject);
    req.end();
  });
}

async function withChannel<T>(r: EgressRules, f: (ch: EgressChannel) => Promise<T>): Promise<T> {
  const ch = await openEgressChannel(r, []);
  try {
    return await f(ch);
  } finally {
    await ch.close();
  }
}

describe('the egress proxy: an allowed name never leads to a loopback address unless that address is listed', () => {
  it('refuses localhost allowed by name, over HTTP and CONNECT, and reaches nothing', async () => {
    const tally = new ConnectionTally();
    const before = loop.connections;
    const [got, tunnel] = await withChannel(rules(['localhost'], tally), (ch) =>
      Promise.all([
        viaProxy(ch, `http://localhost:${loop.port}/`),
        viaProxy(ch, `http://localhost:${loop.port}/`, true),
      ]),
    );
    expect(got.status).toBe(403);
    expect(got.body).toMatch(
      /localhost:\d+: it resolves to 127\.0\.0\.1, a loopback address.*add 127\.0\.0\.1 to network\.allow/,
    );
    expect(tunnel.status).toBe(403);
    expect(loop.connections).toBe(before);
    expect(tally.list()).toEqual([{ host: 'localhost', port: loop.port, allowed: false, count: 2 }]);
  });

  it('reaches it when the address is listed as well', async () => {
    const tally = new ConnectionTally();
    const got = await withChannel(rules(['localhost', '127.0.0.1'], tally), (ch) =>
      viaProxy(ch, `http://localhost:${loop.port}/`),
    );
    expect(got).toEqual({ status: 200, body: 'hello from 127.0.0.1\n' });
    expect(tally.list()).toEqual([{ host: 'localhost', port: loop.port, allowed: true, count: 1 }]);
  });

  it('connects to the address the rules picked, not to a second lookup of the name', async () => {
    // Rules that pick 127.0.0.2 for localhost: were the name looked up again to connect, 127.0.0.1 would answer.
    const picked: EgressRules = {
      ...rules(['localhost'], new ConnectionTally()),
      pick: () => ({ address: '127.0.0.2' }),
    };
    const got = await withChannel(picked, (ch) => viaProxy(ch, `http://localhost:${other.port}/`));
    expect(got).toEqual({ status: 200, body: 'hello from 127.0.0.2\n' });
  });
});
