// `interlock ui` (issue 46): the page answers only requests addressed to its own 127.0.0.1:<port> (a name an
// attacker's DNS points at 127.0.0.1 gets nothing, against DNS rebinding), and the token in its path is compared
// by timingSafeEqual on equal-length digests, whatever was sent, never by a prefix test that stops at the first
// wrong character.
import { execFileSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

/** Every call of timingSafeEqual the page makes: the lengths of its two buffers. */
const compared: [number, number][] = [];
vi.mock('node:crypto', async (original) => {
  const real = await original<typeof import('node:crypto')>();
  return {
    ...real,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compared.push([a.byteLength, b.byteLength]);
      return real.timingSafeEqual(a, b);
    },
  };
});

const { startUi } = await import('../../src/cli/commands/ui.js');
const { main } = await import('../../src/cli/main.js');

let dir: string;
let ui: Awaited<ReturnType<typeof startUi>>;
const io = () => {
  const { GIT_DIR: _, ...env } = process.env;
  return { out: () => {}, err: () => {}, cwd: dir, env };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'interlock-ui-guard-'));
  execFileSync('git', ['init', '-q'], { cwd: dir });
  writeFileSync(
    join(dir, 'hello.yml'),
    'interlock: 1\nname: hello\nnodes:\n  - id: publish\n    approval: before\n    run: "true"\n',
  );
  expect(await main(['run', 'hello.yml', '--all', '--quiet'], io())).toBe(3);
  ui = await startUi(io(), { dir: join(dir, '.interlock/runs'), port: 0, by: 'alice' });
});
afterAll(async () => {
  await ui?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A GET of `path` with the Host header `host`, as a browser sends it after a DNS answer. */
function get(path: string, host: string): Promise<{ status: number; body: string }> {
  const u = new URL(ui.url);
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port: u.port, path, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (b: Buffer) => {
        body += b.toString('utf8');
      });
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

describe('interlock ui: only its own address, only its token', () => {
  it('answers the page at its own 127.0.0.1:<port>', async () => {
    const u = new URL(ui.url);
    const page = await get(u.pathname, u.host);
    expect(page.status).toBe(200);
    expect(page.body).toContain('approval before its first attempt');
  });

  it.each(['rebind.attacker.example', 'localhost', '[::1]', '127.0.0.2'])(
    'refuses the page with the right token when the Host is %s:<port> (DNS rebinding)',
    async (name) => {
      const u = new URL(ui.url);
      const page = await get(u.pathname, `${name}:${u.port}`);
      expect(page.status).toBe(421);
      expect(page.body).not.toContain('publish');
    },
  );

  it('refuses a request that names no port or another one', async () => {
    const u = new URL(ui.url);
    expect((await get(u.pathname, '127.0.0.1')).status).toBe(421);
    expect((await get(u.pathname, `127.0.0.1:${Number(u.port) + 1}`)).status).toBe(421);
  });

  it('compares every token sent by timingSafeEqual on 32-byte digests, whatever its length', async () => {
    const u = new URL(ui.url);
    const token = u.pathname.split('/')[2]!;
    const tries = ['', 'x', token.slice(0, -1), `${token.slice(0, -1)}A`, `${token}x`, token.repeat(3)];
    for (const t of tries) {
      compared.length = 0;
      const page = await get(`/t/${t}/`, u.host);
      expect(page.status, t).toBe(404);
      expect(compared, t).toEqual([[32, 32]]);
    }
    compared.length = 0;
    expect((await get(u.pathname, u.host)).status).toBe(200);
    expect(compared).toEqual([[32, 32]]);
  });
});

// The module itself is real: only timingSafeEqual is watched.
it('crypto is the real module', () => {
  expect(crypto.createHash('sha256').update('').digest('hex')).toMatch(/^e3b0c442/);
});
