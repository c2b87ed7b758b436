// `npm start` itself (node dist/app.js, so dist/ must be current), as the README gives it: a child process that
// reads its configuration from the environment, listens, and handles a signed delivery against the local GitHub. The server's logic is tested in server.test.ts.
import { type ChildProcess, spawn } from 'node:child_process';
import { sign } from '@octokit/webhooks-methods';
import { afterEach, describe, expect, it } from 'vitest';
import { approvalDelivery, appServerEnv, observe, startWorld, type World } from './world.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const SECRET = 'npm-start-secret';

let world: World | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  // npm, its shell and node: the whole process group.
  if (child?.pid && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
  child = undefined;
  await world?.close();
  world = undefined;
});

/** Runs `npm start` with this environment; resolves with the URL it prints, or its exit and output. */
function npmStart(env: Record<string, string>) {
  const proc = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child = proc;
  let out = '';
  return new Promise<{ url?: string; code?: number | null; out: string }>((resolve) => {
    const seen = (d: Buffer) => {
      out += d.toString();
      const m = /receiving webhooks at (\S+)/.exec(out);
      if (m) resolve({ url: m[1], out });
    };
    proc.stdout.on('data', seen);
    proc.stderr.on('data', seen);
    proc.on('exit', (code) => resolve({ code, out }));
  });
}

describe('npm start', () => {
  it('with an APP_ID but not the rest, refuses to start and names what is missing', async () => {
    const r = await npmStart({ APP_ID: '12' });
    expect(r.url).toBeUndefined();
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/WEBHOOK_SECRET is not set/);
  });

  it('listens, and a signed /approve-rerun delivery approves and dispatches once', async () => {
    world = await startWorld();
    world.seedRun();
    const r = await npmStart(appServerEnv(world, SECRET));
    expect(r.url, r.out).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/github\/webhooks$/);
    const { ev, body } = approvalDelivery(world);
    const res = await fetch(r.url!, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': 'npm-start-1',
        'x-hub-signature-256': await sign(SECRET, body),
      },
      body,
    });
    expect(res.status).toBe(200);
    const seen = observe(world, ev.payload.comment.id);
    expect(seen.approvals).toHaveLength(1);
    expect(seen.dispatches).toHaveLength(1);
  });
});
