// The App as it is deployed: the bundle dist/app.js started by `npm start` from a copy of the package that has no
// node_modules at all (stricter than `npm ci --omit=dev`), its health check, setup mode without APP_ID, and the
// Dockerfile's promises. Needs a current dist/ (`npm run build`; `npm test` builds it first).
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildManifest, envText, setupPage } from '../../src/app/manifest.js';
import { signature } from '../../src/app/receive.js';
import type { RunningApp } from '../../src/app/server.js';
import { startSetupServer } from '../../src/app/setup.js';
import { npmStart, stopNpmStart } from './npm-start.js';
import { APP_PRIVATE_KEY, approvalDelivery, appServerEnv, observe, startWorld, type World } from './world.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const SECRET = 'deploy-secret';

let world: World | undefined;
let setup: RunningApp | undefined;
const temps: string[] = [];
afterEach(async () => {
  stopNpmStart();
  await setup?.close();
  setup = undefined;
  await world?.close();
  world = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'interlock-deploy-'));
  temps.push(dir);
  return dir;
}

/** package.json, app.yml and dist/ only: what `npm start` may use in production. */
function packageCopy(): string {
  const dir = temp();
  for (const f of ['package.json', 'app.yml']) cpSync(join(ROOT, f), join(dir, f));
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
  return dir;
}

describe('npm start from the bundle, with no node_modules', () => {
  it('answers GET /ping with 200 PONG and handles a signed delivery', async () => {
    const dir = packageCopy();
    expect(existsSync(join(dir, 'node_modules'))).toBe(false);
    world = await startWorld();
    await world.seedRun();
    const r = await npmStart(dir, appServerEnv(world, SECRET), /receiving webhooks at (\S+)/);
    const url = r.match?.[1];
    expect(url, r.out).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/github\/webhooks$/);
    const ping = await fetch(new URL('/ping', url));
    expect([ping.status, await ping.text()]).toEqual([200, 'PONG']);
    const { ev, body } = approvalDelivery(world);
    const res = await fetch(url!, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': 'bundle-1',
        'x-hub-signature-256': signature(SECRET, body),
      },
      body,
    });
    expect(res.status).toBe(200);
    expect(observe(world, ev.payload.comment.id).approvals).toHaveLength(1);
  });

  it('reads the .env that setup mode writes, and starts with it', async () => {
    const dir = packageCopy();
    world = await startWorld();
    const app = {
      id: world.server.state.app.id,
      pem: APP_PRIVATE_KEY,
      webhook_secret: SECRET,
      html_url: 'https://x',
    };
    writeFileSync(join(dir, '.env'), envText(app));
    // Only where to listen and which GitHub: the App's id, key and secret come from .env.
    const { APP_ID: _id, PRIVATE_KEY: _key, WEBHOOK_SECRET: _secret, ...rest } = appServerEnv(world, SECRET);
    const r = await npmStart(dir, rest, /receiving webhooks at (\S+)/);
    expect(r.match?.[1], r.out).toBeDefined();
    const ping = await fetch(new URL('/ping', r.match![1]));
    expect(ping.status).toBe(200);
  });

  it('without APP_ID starts setup mode and names every variable to set', async () => {
    const r = await npmStart(packageCopy(), { PORT: '0', HOST: '127.0.0.1' }, /start again\./);
    expect(r.out).toMatch(/setup mode: open http:\/\/127\.0\.0\.1:\d+\/ to register the App/);
    for (const name of ['APP_ID', 'WEBHOOK_SECRET', 'PRIVATE_KEY', 'PRIVATE_KEY_PATH'])
      expect(r.out).toContain(name);
  });
});

describe('setup mode (the App-manifest flow)', () => {
  async function startSetup(env: Record<string, string> = {}) {
    const dir = temp();
    cpSync(join(ROOT, 'app.yml'), join(dir, 'app.yml'));
    setup = await startSetupServer({ PORT: '0', HOST: '127.0.0.1', ...env }, { dir, log: () => {} });
    return { dir, base: setup.url.replace(/\/$/, '') };
  }

  it('offers a form that posts the manifest from app.yml, with this server as webhook and redirect', async () => {
    const { base } = await startSetup({ GITHUB_ORG: 'acme' });
    const page = await (await fetch(`${base}/`, { headers: { 'x-forwarded-proto': 'https' } })).text();
    const action = /<form action="([^"]+)"/.exec(page)?.[1];
    expect(action).toMatch(
      /^https:\/\/github\.com\/organizations\/acme\/settings\/apps\/new\?state=[0-9a-f]{32}$/,
    );
    const value = /name="manifest" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const manifest = JSON.parse(value.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c))));
    const host = new URL(base).host;
    expect(manifest).toMatchObject({
      name: 'interlock',
      hook_attributes: { url: `https://${host}/api/github/webhooks` },
      redirect_url: `https://${host}/setup/done`,
      default_events: ['issue_comment', 'check_run', 'push'],
      default_permissions: { contents: 'write', checks: 'write', metadata: 'read' },
    });
  });

  it('offers no registration when the credentials could not be saved, only what to set', () => {
    const target = { baseUrl: 'http://x', webhookPath: '/hook', githubUrl: 'https://github.com', state: 's' };
    const page = setupPage(buildManifest('name: interlock\n', target), target);
    expect(page).not.toContain('<form');
    expect(page).toContain('not writable');
    expect(page).toContain('WEBHOOK_SECRET');
  });

  it('answers /ping with 503 while no webhook can be handled', async () => {
    const { base } = await startSetup();
    const res = await fetch(`${base}/ping`);
    expect([res.status, await res.text()]).toEqual([503, 'setup mode: APP_ID is not set\n']);
  });

  it('refuses a code that comes without the state it issued, and writes no .env', async () => {
    const { base, dir } = await startSetup();
    const res = await fetch(`${base}/setup/done?code=abc&state=forged`);
    expect(res.status).toBe(400);
    expect(existsSync(join(dir, '.env'))).toBe(false);
  });

  it('never overwrites an existing .env', async () => {
    const { base, dir } = await startSetup();
    writeFileSync(join(dir, '.env'), 'KEEP=1\n');
    const page = await (await fetch(`${base}/`)).text();
    const state = /state=([0-9a-f]+)/.exec(page)?.[1];
    const res = await fetch(`${base}/setup/done?code=abc&state=${state}`);
    expect(res.status).toBe(409);
    expect(readFileSync(join(dir, '.env'), 'utf8')).toBe('KEEP=1\n');
  });
});

describe('the Dockerfile (docker is not available here: read, not built)', () => {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const instructions = text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((l) => /^[A-Z]+\s/.test(l))
    .map((l) => l.trim());

  it('has a build stage and a runtime stage', () => {
    expect(instructions.filter((l) => l.startsWith('FROM ')).length).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(/COPY --from=\S+ \S*dist/);
  });

  it('installs production dependencies only in the runtime stage', () => {
    const runtime = text.slice(text.lastIndexOf('\nFROM '));
    expect(runtime).toMatch(/npm ci --omit=dev/);
    expect(runtime).not.toMatch(/npm ci(?! --omit=dev)/);
  });

  it('runs as a non-root user', () => {
    const user = instructions.filter((l) => l.startsWith('USER ')).at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER\s+(root|0)(:|\s|$)/);
  });

  it('checks its health on /ping and starts the bundle', () => {
    expect(instructions.find((l) => l.startsWith('HEALTHCHECK '))).toMatch(/\/ping/);
    expect(instructions.at(-1)).toMatch(/^CMD \["node", "dist\/app\.js"\]$/);
  });
});
