// Setup mode: what `npm start` serves when APP_ID is not set. It offers GitHub's App-manifest flow from app.yml
// (register, get the credentials back, save them to .env) and says exactly what to set instead.
import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { clientTuning } from '../github/client.js';
import {
  buildManifest,
  type Conversion,
  donePage,
  envText,
  type ManifestTarget,
  REQUIRED_SETTINGS,
  SETUP_DONE_PATH,
  setupPage,
} from './manifest.js';
import { pageConfigProblem } from './page/page-app.js';
import type { RunningApp } from './server.js';

interface SetupOptions {
  /** Where app.yml is read and .env is written (the package root). */
  dir: string;
  log?: (line: string) => void;
}

/** The public origin of a request, as a reverse proxy reports it. */
function baseUrlOf(req: IncomingMessage): string {
  const first = (h: string | string[] | undefined) => (Array.isArray(h) ? h[0] : h)?.split(',')[0]?.trim();
  const proto = first(req.headers['x-forwarded-proto']) ?? 'http';
  const host = first(req.headers['x-forwarded-host']) ?? req.headers.host ?? 'localhost';
  return `${proto}://${host}`;
}

const text = (res: ServerResponse, status: number, body: string) =>
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(`${body}\n`);
const html = (res: ServerResponse, body: string) =>
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);

/** Whether .env can be written there: the code GitHub hands back works once, so a failed save loses the App. */
function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Trades the one-time code for the App's credentials (no authentication: the code is the secret). Never sent
 * twice: after a failed or lost answer GitHub may have made the App and used the code, so the error says where to
 * look before starting again.
 */
async function convert(
  apiUrl: string,
  code: string,
  timeoutMs: number,
  githubUrl: string,
): Promise<Conversion> {
  const again = `GitHub may have made the App already: delete it at ${githubUrl}/settings/apps (or the organization's) if it is there, then start again from /`;
  let res: Response;
  try {
    res = await fetch(`${apiUrl}/app-manifests/${encodeURIComponent(code)}/conversions`, {
      method: 'POST',
      headers: { accept: 'application/vnd.github+json', 'user-agent': 'interlock-app-setup' },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    const why = (e as Error).name === 'TimeoutError' ? 'no answer in time' : (e as Error).message;
    throw new Error(`GitHub's answer to the manifest conversion was lost (${why}). ${again}`);
  }
  if (res.status !== 201)
    throw new Error(`GitHub answered ${res.status} to the manifest conversion; nothing was saved. ${again}`);
  try {
    return (await res.json()) as Conversion;
  } catch (e) {
    throw new Error(
      `GitHub's answer to the manifest conversion was cut off (${(e as Error).message}). ${again}`,
    );
  }
}

/** Starts the setup server on PORT and HOST; GET /ping answers 503, since no webhook can be handled yet. */
export async function startSetupServer(env: NodeJS.ProcessEnv, options: SetupOptions): Promise<RunningApp> {
  const log = options.log ?? ((line: string) => console.log(line));
  const appYml = readFileSync(join(options.dir, 'app.yml'), 'utf8');
  const envFile = join(options.dir, '.env');
  const state = randomBytes(16).toString('hex');
  const apiUrl = (env.GITHUB_API_URL ?? 'https://api.github.com').replace(/\/+$/, '');
  const timeoutMs = clientTuning(env).requestTimeoutMs ?? 30_000;
  let registered = false;
  const target = (req: IncomingMessage): ManifestTarget => ({
    baseUrl: baseUrlOf(req),
    webhookPath: env.WEBHOOK_PATH ?? '/api/github/webhooks',
    githubUrl: (env.GITHUB_URL ?? 'https://github.com').replace(/\/+$/, ''),
    org: env.GITHUB_ORG || undefined,
    state,
  });

  async function done(req: IncomingMessage, url: URL, res: ServerResponse) {
    if (registered) return text(res, 409, 'The App is already registered: restart the server (npm start).');
    const code = url.searchParams.get('code');
    if (!code || url.searchParams.get('state') !== state)
      return text(res, 400, 'Missing code, or a state this server did not issue: start again from /.');
    if (existsSync(envFile))
      return text(res, 409, `${envFile} exists already: remove it or set APP_ID there.`);
    if (!writable(options.dir))
      return text(res, 409, `${options.dir} is not writable: the credentials could not be saved.`);
    const app = await convert(apiUrl, code, timeoutMs, target(req).githubUrl);
    // The maintainers' page is turned on where this address can serve it (https, or plain-HTTP localhost).
    const base = baseUrlOf(req);
    const pageUrl = pageConfigProblem({ url: base }) ? undefined : base;
    writeFileSync(envFile, envText(app, pageUrl, randomBytes(32).toString('base64')), {
      mode: 0o600,
      flag: 'wx',
    });
    registered = true;
    log(`interlock app: registered ${app.html_url}; credentials saved in ${envFile}. Restart: npm start`);
    return html(res, donePage(app, envFile));
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://setup.invalid');
    if (req.method !== 'GET') return text(res, 405, 'Setup mode answers GET only.');
    if (url.pathname === '/ping') return text(res, 503, 'setup mode: APP_ID is not set');
    if (url.pathname === '/')
      return html(
        res,
        setupPage(
          buildManifest(appYml, target(req)),
          target(req),
          writable(options.dir) ? envFile : undefined,
        ),
      );
    if (url.pathname === SETUP_DONE_PATH)
      return void done(req, url, res).catch((e: Error) =>
        text(res, 502, `Registration failed: ${e.message}`),
      );
    return text(res, 404, 'not found (setup mode: open / to register the App)');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(env.PORT ?? 3000), env.HOST ?? '0.0.0.0', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}/`;
  log(
    [
      `interlock app: APP_ID is not set, so this is setup mode: open ${url} to register the App from app.yml,`,
      `or set ${REQUIRED_SETTINGS.join(', ')} and start again.`,
    ].join('\n'),
  );
  return {
    url,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
