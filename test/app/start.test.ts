// `npm start` itself (node dist/app.js, so dist/ must be current) in the repository, as the README gives it: a
// child process that reads its configuration from the environment. Listening and handling a signed delivery are
// shown from a copy of the package without node_modules in deploy.test.ts; the server's logic in server.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { npmStart, stopNpmStart } from './npm-start.js';

const ROOT = new URL('../..', import.meta.url).pathname;

afterEach(() => stopNpmStart());

describe('npm start', () => {
  it('with an APP_ID but not the rest, refuses to start and names what is missing', async () => {
    const r = await npmStart(ROOT, { APP_ID: '12' }, /receiving webhooks at/);
    expect(r.match).toBeUndefined();
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/WEBHOOK_SECRET is not set/);
  });
});
