// `npm run receive -- --event <name> payload.json`: delivers a saved webhook payload to the App, signed as GitHub
// signs it, for local debugging. Without --url the App runs in this process (on a free local port) with the
// environment's APP_ID and PRIVATE_KEY; with --url the delivery goes to an App already running there.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startServer } from './server.js';

const RECEIVE_USAGE =
  'usage: npm run receive -- --event <event name> [--url <webhook URL>] <payload.json>\n' +
  '  e.g. npm run receive -- --event issue_comment ./comment.json';

interface ReceiveRequest {
  event: string;
  file: string;
  url?: string;
}

/** Reads the command line; a mistake throws the usage with what was wrong. */
export function parseReceiveArgs(argv: string[]): ReceiveRequest {
  const fail = (why: string): never => {
    throw new Error(`${why}\n${RECEIVE_USAGE}`);
  };
  const options = { event: { type: 'string' }, url: { type: 'string' } } as const;
  let values: { event?: string; url?: string };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, options, allowPositionals: true }));
  } catch (e) {
    return fail((e as Error).message);
  }
  if (!values.event) return fail('--event is missing: the X-GitHub-Event name, e.g. issue_comment');
  const [file, ...extra] = positionals;
  if (!file || extra.length) return fail('give exactly one payload file');
  return { event: values.event, file, ...(values.url ? { url: values.url } : {}) };
}

/** The `X-Hub-Signature-256` header GitHub sends with `body`. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** What the App answered. */
interface Delivered {
  status: number;
  body: string;
}

async function post(url: string, event: string, body: string, secret: string): Promise<Delivered> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': signature(secret, body),
    },
    body,
  });
  return { status: res.status, body: await res.text() };
}

/** Delivers the payload file; the App's own log shows what its handler did. */
export async function receive(request: ReceiveRequest, env: NodeJS.ProcessEnv): Promise<Delivered> {
  let body: string;
  try {
    body = JSON.stringify(JSON.parse(readFileSync(request.file, 'utf8')));
  } catch (e) {
    throw new Error(`${request.file}: not a readable JSON payload (${(e as Error).message})`);
  }
  if (request.url) {
    if (!env.WEBHOOK_SECRET)
      throw new Error('WEBHOOK_SECRET is not set: --url needs the secret the App at that URL checks');
    return post(request.url, request.event, body, env.WEBHOOK_SECRET);
  }
  // In-process the signer and the checker are the same, so any secret proves the signature path works.
  const secret = env.WEBHOOK_SECRET || randomBytes(16).toString('hex');
  // No sweep of missed deliveries: replaying one payload must not ask GitHub to send others again.
  const app = await startServer({
    ...env,
    WEBHOOK_SECRET: secret,
    PORT: '0',
    HOST: '127.0.0.1',
    INTERLOCK_REDELIVER: 'off',
  });
  try {
    return await post(app.url, request.event, body, secret);
  } finally {
    await app.close();
  }
}
