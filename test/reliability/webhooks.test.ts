// Malformed webhook deliveries to the App as a real HTTP server (what `npm start` runs). test/app/server.test.ts
// covers a bad, a missing and a misapplied signature and a redelivery; these are the rest: wrong content types,
// malformed JSON under a good signature, missing headers, a SHA-1-only signature, an unknown event, and bodies
// too large to read (refused before they are read, so no one can make the App hold gigabytes).
import { connect } from 'node:net';
import { sign } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DELIVERY_BYTES, type RunningApp, startServer } from '../../src/app/server.js';
import {
  approvalDelivery,
  appServerEnv,
  observe,
  quietOctokit,
  startWorld,
  type World,
} from '../app/world.js';

const SECRET = 'webhook-secret-for-reliability';

let world: World;
let app: RunningApp;
let body: string;

beforeAll(async () => {
  world = await startWorld();
  await world.seedRun();
  app = await startServer(appServerEnv(world, SECRET), { Octokit: quietOctokit() });
  body = approvalDelivery(world).body;
});
afterAll(async () => {
  await app?.close();
  await world?.close();
});

let delivery = 0;
const headers = (extra: Record<string, string | undefined> = {}) =>
  Object.fromEntries(
    Object.entries({
      'content-type': 'application/json',
      'x-github-event': 'issue_comment',
      'x-github-delivery': `reliability-${++delivery}`,
      ...extra,
    }).filter((e): e is [string, string] => e[1] !== undefined),
  );

interface Delivery {
  name: string;
  send: () => Promise<{ status: number; text: string }>;
  status: number;
  says: RegExp;
}

async function post(b: string, h: Record<string, string>): Promise<{ status: number; text: string }> {
  const r = await fetch(app.url, { method: 'POST', headers: h, body: b });
  return { status: r.status, text: await r.text() };
}

/** A raw HTTP request: headers only, the body never sent, so the answer shows the body was not awaited. */
function raw(lines: string[]): Promise<{ status: number; text: string }> {
  const url = new URL(app.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    let data = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s: the body was awaited')));
    socket.on('data', (c: Buffer) => {
      data += c.toString('utf8');
      if (/\r\n\r\n[\s\S]*\n/.test(data)) socket.end();
    });
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(data)?.[1] ?? 0);
      resolve({ status, text: data.slice(data.indexOf('\r\n\r\n') + 4) });
    });
    socket.on('error', reject);
  });
}

const signed = async (b: string) => ({ 'x-hub-signature-256': await sign(SECRET, b) });

const DELIVERIES: Delivery[] = [
  {
    name: 'form-encoded content type',
    send: async () =>
      post(body, headers({ ...(await signed(body)), 'content-type': 'application/x-www-form-urlencoded' })),
    status: 415,
    says: /Content-Type/,
  },
  {
    name: 'text/plain content type',
    send: async () => post(body, headers({ ...(await signed(body)), 'content-type': 'text/plain' })),
    status: 415,
    says: /Content-Type/,
  },
  {
    name: 'no content type',
    send: async () => post(body, headers({ ...(await signed(body)), 'content-type': undefined })),
    status: 415,
    says: /Content-Type/,
  },
  {
    name: 'malformed JSON under a good signature',
    send: async () => post('{"action":', headers(await signed('{"action":'))),
    status: 400,
    says: /Invalid JSON/,
  },
  {
    name: 'no event header',
    send: async () => post(body, headers({ ...(await signed(body)), 'x-github-event': undefined })),
    status: 400,
    says: /x-github-event/,
  },
  {
    name: 'no delivery id',
    send: async () => post(body, headers({ ...(await signed(body)), 'x-github-delivery': undefined })),
    status: 400,
    says: /x-github-delivery/,
  },
  {
    name: 'only a SHA-1 signature',
    send: () => post(body, headers({ 'x-hub-signature': 'sha1=0000000000000000000000000000000000000000' })),
    status: 400,
    says: /x-hub-signature-256/,
  },
  {
    name: 'a signature of the right length and the wrong value',
    send: () => post(body, headers({ 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` })),
    status: 400,
    says: /signature does not match/,
  },
  {
    name: 'an event no handler takes, well signed',
    send: async () => post(body, headers({ ...(await signed(body)), 'x-github-event': 'gollum' })),
    status: 200,
    says: /ok/,
  },
  {
    name: 'a declared body over 25 MB (refused before it is read)',
    send: () =>
      raw([
        `POST ${new URL(app.url).pathname} HTTP/1.1`,
        'Host: localhost',
        'Content-Type: application/json',
        'X-GitHub-Event: issue_comment',
        'X-GitHub-Delivery: oversized',
        `X-Hub-Signature-256: sha256=${'0'.repeat(64)}`,
        `Content-Length: ${MAX_DELIVERY_BYTES + 1}`,
      ]),
    status: 413,
    says: /too large/,
  },
  {
    name: 'a declared body of 4 GB (refused before it is read)',
    send: () =>
      raw([
        `POST ${new URL(app.url).pathname} HTTP/1.1`,
        'Host: localhost',
        'Content-Type: application/json',
        'X-GitHub-Event: issue_comment',
        'X-GitHub-Delivery: huge',
        'Content-Length: 4294967296',
      ]),
    status: 413,
    says: /too large/,
  },
  {
    name: 'a chunked body with no length (GitHub always sends one)',
    send: () =>
      raw([
        `POST ${new URL(app.url).pathname} HTTP/1.1`,
        'Host: localhost',
        'Content-Type: application/json',
        'X-GitHub-Event: issue_comment',
        'X-GitHub-Delivery: chunked',
        'Transfer-Encoding: chunked',
      ]),
    status: 411,
    says: /length required/,
  },
];

describe('malformed webhook deliveries are refused and change nothing', () => {
  it.each(DELIVERIES.map((d) => [d.name, d] as const))('%s', async (_name, d) => {
    const mark = world.server.requests.mark();
    const r = await d.send();
    expect(r.status).toBe(d.status);
    expect(r.text).toMatch(d.says);
    // Nothing reached GitHub, and nothing was approved.
    expect(world.server.requests.stats(mark).total).toBe(0);
    expect(observe(world).approvals).toHaveLength(0);
  });
});
