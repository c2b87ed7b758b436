// A script in a network namespace of its own (src/os/netns.ts, src/os/proxies/egress-proxy.ts), run through runScript as
// the CLI runs it (no node user): only loopback inside, the host-loopback ports it is given passed through at the
// same port, every other way out through the proxy's rules; no capabilities, so it cannot leave; and the channel
// gone once it ends. Needs root or passwordless sudo.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScript } from '../../src/os/exec.js';
import { netnsProblem } from '../../src/os/netns.js';
import { processAlive } from '../../src/os/processes.js';
import { removeStaleEgressFolders } from '../../src/os/proxies/egress-proxy.js';
import {
  ConnectionTally,
  egressDecision,
  egressPick,
  egressRefusal,
} from '../../src/protocol/attempt/egress.js';

const why = netnsProblem();
if (why) console.warn(`netns.test.ts skipped: ${why}`);

function listen(ip: string): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => res.end(`service on ${ip}\n`));
  return new Promise((r) =>
    server.listen(0, ip, () => r({ server, port: (server.address() as { port: number }).port })),
  );
}

describe.skipIf(!!why)('a script in a network namespace', () => {
  let passed: { server: Server; port: number };
  let hidden: { server: Server; port: number };
  beforeAll(async () => {
    passed = await listen('127.0.0.1');
    hidden = await listen('127.0.0.1');
  });
  afterAll(() => {
    passed.server.close();
    hidden.server.close();
  });

  async function run(script: string, allow: string[] = []) {
    const tally = new ConnectionTally();
    const r = await runScript({
      script,
      grants: new Map(),
      env: { PATH: process.env.PATH },
      cwd: '/tmp',
      timeoutMs: 20_000,
      network: {
        passPorts: [passed.port],
        rules: {
          decide: (h, p) => egressDecision(allow, h, p),
          refusal: (h, p) => egressRefusal('n', h, p),
          pick: (h, p, a) => egressPick('n', allow, h, p, a),
          record: (h, p, a) => tally.add(h, p, a),
        },
      },
    });
    return { ...r, connections: tally.list() };
  }

  it('reaches a passed-through host-loopback port at the same port, and no other', async () => {
    const r = await run(
      `curl -sS http://127.0.0.1:${passed.port}/; { curl -sS --noproxy '*' http://127.0.0.1:${hidden.port}/ 2>&1 || true; } | head -c 60; echo; curl -sS -o /dev/null -w '%{http_code}\\n' --noproxy '' --proxy "$HTTP_PROXY" http://127.0.0.1:${hidden.port}/`,
    );
    expect(r.exitCode, r.tail).toBe(0);
    const lines = r.tail.trim().split('\n');
    expect(lines[0]).toBe('service on 127.0.0.1');
    expect(lines[1]).toMatch(/Couldn't connect|Failed to connect/);
    expect(lines[2]).toBe('403');
    // The passed-through port is no request through the proxy: only the refused one is counted.
    expect(r.connections).toEqual([{ host: '127.0.0.1', port: hidden.port, allowed: false, count: 1 }]);
  });

  it('answers a CONNECT to an allowed host that refuses it with a 502 naming it', async () => {
    const r = await run(
      'exec 3<>"/dev/tcp/127.0.0.1/${HTTP_PROXY##*:}"; printf "CONNECT 127.0.0.2:1 HTTP/1.1\\r\\n\\r\\n" >&3; cat <&3',
      ['127.0.0.2'],
    );
    expect(r.tail).toContain('HTTP/1.1 502 Bad Gateway');
    expect(r.tail).toMatch(/interlock: 127\.0\.0\.2:1: connect ECONNREFUSED/);
  });

  it('has only a loopback, no capabilities, and cannot enter the host namespace', async () => {
    // nsenter's own complaint goes to stderr, which the tail may put after stdout's last line: kept out of it.
    const r = await run(
      "ip -o link | cut -d: -f2 | tr -d ' '; grep CapEff /proc/self/status; nsenter -t 1 -n true 2>/dev/null && echo entered || echo refused",
    );
    const lines = r.tail.trim().split('\n');
    expect(lines[0]).toBe('lo');
    expect(lines[1]).toMatch(/^CapEff:\s+0+$/);
    expect(lines.at(-1)).toBe('refused');
  });

  it('passes the exit status and the environment through, with the proxy variables set', async () => {
    const r = await run('echo "$HTTPS_PROXY|$https_proxy|$NO_PROXY|$no_proxy"; exit 7');
    expect(r.exitCode).toBe(7);
    expect(r.tail.trim()).toMatch(
      /^http:\/\/127\.0\.0\.1:(\d+)\|http:\/\/127\.0\.0\.1:\1\|127\.0\.0\.1,localhost,::1\|127\.0\.0\.1,localhost,::1$/,
    );
  });

  it("leaves no channel behind: the script's sockets are gone once it ended", async () => {
    const r = await run('true');
    expect(r.exitCode).toBe(0);
    // The namespace's processes cannot list the folder (this process's user only), so ask from outside.
    const left = readdirSync('/tmp')
      .filter((n) => n.startsWith(`interlock-egress-${process.pid}-`))
      .flatMap((d) => readdirSync(`/tmp/${d}`));
    expect(left).toEqual([]);
  });
});

describe.skipIf(!!why)('a namespaced script past its timeout', () => {
  it('is stopped like any other: the attempt ends, the script and its relay are gone', async () => {
    const started = Date.now();
    const r = await runScript({
      script: "trap '' TERM; echo $$ >&2; sleep 60",
      grants: new Map(),
      env: { PATH: process.env.PATH },
      cwd: '/tmp',
      // Long enough for the namespace to be set up and the script to say its pid on a loaded machine (at 500 ms,
      // under load, it was stopped before it had).
      timeoutMs: 3000,
      network: {
        passPorts: [],
        rules: {
          decide: (h) => ({ host: h, allowed: false }),
          refusal: () => 'no\n',
          pick: () => ({ refusal: 'no\n' }),
          record: () => {},
        },
      },
    });
    expect(r.timedOut, r.tail).toBe(true);
    expect(Date.now() - started).toBeLessThan(15_000);
    const pid = Number(/(\d+)/.exec(r.tail)?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(processAlive(pid)).toBe(false);
  });
});

describe('the post step removes the socket folders of processes that are gone', () => {
  it("removes a dead process's folder and keeps a live one's", () => {
    const dead = mkdtempSync(join(tmpdir(), 'interlock-egress-999999999-'));
    const live = mkdtempSync(join(tmpdir(), `interlock-egress-${process.ppid}-`));
    try {
      const removed = removeStaleEgressFolders((pid) => pid !== 999999999);
      expect(removed).toContain(dead.split('/').pop());
      expect(existsSync(dead)).toBe(false);
      expect(existsSync(live)).toBe(true);
    } finally {
      rmSync(live, { recursive: true, force: true });
    }
  });
});
