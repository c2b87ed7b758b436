/**
 * The App face of the crash matrix: the App server (`node dist/app.js`, as `npm start` runs it) receives real
 * signed deliveries of a person's comment and is SIGKILLed around the comment's journal write; then GitHub
 * redelivers the same delivery (same id), and/or the person comments anew, to a fresh server. The steps before and
 * after are the Action's (crash-action.ts).
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { sign } from '@octokit/webhooks-methods';
import { type AppProcess, startAppProcess } from '../support/app-process.js';
import { staleWindowOf } from '../support/clock.js';
import { ActionDriver, applications, commentBody, runDriver } from './crash-action.js';
import type { Scenario } from './crash-model.js';
import { target } from './crash-model.js';
import type { Delivery, Verb } from './crash-play.js';
import { type ActionWorld, APPROVER, CRASH_APP_DISPATCH_LEASE_MS } from './github-world.js';

const SECRET = 'crash-webhook-secret';
let privateKey: string | undefined;
const key = () =>
  (privateKey ??= generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey);

/** `node dist/app.js` on a free port, pointed at this world's GitHub; resolves once it listens. */
function startApp(world: ActionWorld, env: Record<string, string>): Promise<AppProcess> {
  return startAppProcess({
    APP_ID: String(world.server.state.app.id),
    PRIVATE_KEY: key(),
    WEBHOOK_SECRET: SECRET,
    PORT: '0',
    HOST: '127.0.0.1',
    GITHUB_API_URL: world.server.url,
    LOG_LEVEL: 'fatal',
    // As the Action's steps here: no spacing between writes (GitHub's guidance, 1 s, is what production keeps).
    INTERLOCK_WRITE_INTERVAL_MS: '0',
    // The local GitHub's reads are at most this stale (its like-GitHub model), as a deployment is told.
    INTERLOCK_STALE_READ_MS: String(staleWindowOf(world.server)),
    // A copy of an approval whose dispatch never happened waits out the claim's lease before it answers.
    INTERLOCK_DISPATCH_LEASE_MS: CRASH_APP_DISPATCH_LEASE_MS,
    // The model reads what was applied from the answer (200 once handled; none when the App died): the answer
    // waits for the handler, and no sweep asks GitHub for deliveries this model does not make.
    INTERLOCK_ANSWER_MS: '8000',
    INTERLOCK_REDELIVER: 'off',
    ...env,
  });
}

/** A signed `issue_comment` delivery; undefined when the server died before it answered. */
async function deliver(url: string, payload: Record<string, unknown>, id: string, installation: number) {
  const body = JSON.stringify({ ...payload, installation: { id: installation } });
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': id,
        'x-hub-signature-256': await sign(SECRET, body),
      },
      body,
    });
    await res.text();
    return res.status;
  } catch {
    return undefined;
  }
}

/** The Action's driver, but people act through the App server, over signed deliveries. */
class AppDriver extends ActionDriver {
  private last: { payload: Record<string, unknown>; id: string } | undefined;
  /** The server that dies at the failpoint is started for that delivery; one clean server takes the rest. */
  private clean: Awaited<ReturnType<typeof startApp>> | undefined;

  private async server(failpoint: string | undefined) {
    if (!failpoint && this.clean) return this.clean;
    this.rec.processes++;
    const app = await startApp(this.world, {
      INTERLOCK_TEST_TAG: this.tag,
      ...(failpoint ? { INTERLOCK_FAILPOINTS: failpoint } : {}),
    });
    if (!failpoint) this.clean = app;
    return app;
  }

  /** GitHub delivers a new comment, or the last delivery again (same id); applied when written and answered. */
  override async person(label: string, verb: Verb, opts: { delivery: Delivery; failpoint?: string }) {
    const { rec, s, subject } = this;
    const t = target(s);
    const d =
      opts.delivery === 'again' && this.last
        ? this.last
        : { payload: subject.comment(commentBody(s, verb)), id: randomUUID() };
    this.last = d;
    const app = await this.server(opts.failpoint);
    const before = applications(subject.journalText(), verb, t);
    const status = await deliver(app.url, d.payload, d.id, this.world.server.state.app.installationId);
    if (opts.failpoint) {
      // A server that did not reach its failpoint would never exit: give it a minute, then stop it.
      const timer = setTimeout(() => app.child.kill('SIGTERM'), 60_000);
      await app.exited;
      clearTimeout(timer);
      rec.expect(
        status === undefined && app.child.signalCode === 'SIGKILL',
        `the App did not die at ${opts.failpoint} (answered ${status})`,
      );
    } else rec.expect(status === 200, `${label}: the App answered ${status}`);
    const text = subject.journalText();
    rec.snapshots.push({ after: label, text });
    // Applied and answered: a delivery the server died on was acknowledged to nobody, whatever it wrote.
    const applied = applications(text, verb, t) > before && status === 200;
    if (applied && verb !== 'fail-run') {
      const type = verb === 'approve' ? 'NodeApproved' : verb === 'settle' ? 'NodeRecorded' : 'RerunApproved';
      rec.acks.push({ by: label, type, node: t, person: APPROVER });
    }
    return applied;
  }

  override async close() {
    this.clean?.child.kill('SIGTERM');
    await this.clean?.exited;
  }
}

/** Runs one scenario with the App server as the face people act through. */
export const runApp = (s: Scenario, world: ActionWorld, root: string) =>
  runDriver(s, new AppDriver(s, world, root));
