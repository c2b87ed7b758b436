/**
 * The App's webhook endpoint (issue 50): a delivery is checked (its signature, over the body as sent), handled,
 * and answered within `answerMs`: 200 when its handler finished in that time, 500 when it failed (GitHub lists it
 * as failed, and the sweep in `deliveries.ts` asks for it again), else 202 at once while the handler goes on, far
 * inside GitHub's 10 s. A delivery id (`X-GitHub-Delivery`) this process is handling or has handled is not
 * handled again, and is answered as the first copy is: a redelivery, or a burst of the same delivery, applies
 * nothing twice (across replicas and restarts, the journal's record of each command's source does the same). The
 * log says how long each delivery took to answer and to handle.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmitterWebhookEvent } from '@octokit/webhooks';
import type { Probot } from 'probot';

/** Delivery ids remembered per process; past it the oldest are forgotten (the journal still holds commands). */
const REMEMBERED = 10_000;

interface ReceiverOptions {
  /** How long a delivery is handled before it is answered 202 and handled on (ms). */
  answerMs: number;
  now?: () => number;
}

type Answer = { status: number; text: string };

function reply(res: ServerResponse, a: Answer): void {
  if (res.headersSent) return;
  res.writeHead(a.status, { 'content-type': 'text/plain' }).end(`${a.text}\n`);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** Deliveries by id: in hand (its handling) or done; a failed one is forgotten, so its redelivery is handled. */
class DeliveryIds {
  readonly #seen = new Map<string, Promise<void> | true>();

  /**
   * The handling of a delivery: begun now (`copy` false), or the one in hand or done for the same id (`copy`
   * true), so a copy is answered as the first one is and handles nothing.
   */
  claim(id: string, handle: () => Promise<void>): { handling: Promise<void>; copy: boolean } {
    const seen = this.#seen.get(id);
    if (seen) return { handling: seen === true ? Promise.resolve() : seen, copy: true };
    const p = handle().then(
      () => {
        this.#seen.set(id, true);
      },
      (e: unknown) => {
        this.#seen.delete(id);
        throw e;
      },
    );
    this.#seen.set(id, p);
    if (this.#seen.size > REMEMBERED) this.#seen.delete(this.#seen.keys().next().value!);
    return { handling: p, copy: false };
  }

  get size(): number {
    return this.#seen.size;
  }

  /** Waits for the deliveries in hand, at most `ms`; says how many were still in hand then. */
  async drain(ms: number): Promise<number> {
    const inHand = () => [...this.#seen.values()].filter((v): v is Promise<void> => v !== true);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(inHand().map((p) => p.catch(() => undefined))),
      new Promise((r) => {
        timer = setTimeout(r, ms);
      }),
    ]);
    clearTimeout(timer);
    return inHand().length;
  }
}

/** The endpoint's handler for `POST <webhook path>`; everything else stays with Probot's middleware. */
export function webhookReceiver(probot: Probot, o: ReceiverOptions) {
  const now = o.now ?? Date.now;
  const ids = new DeliveryIds();
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const began = now();
    if (!/^\s*application\/json\s*(;|$)/.test(header(req, 'content-type') ?? ''))
      return reply(res, { status: 415, text: 'the Content-Type must be application/json' });
    const missing = ['x-github-event', 'x-hub-signature-256', 'x-github-delivery'].filter(
      (h) => header(req, h) === undefined,
    );
    if (missing.length)
      return reply(res, { status: 400, text: `required headers missing: ${missing.join(', ')}` });
    const id = header(req, 'x-github-delivery')!;
    const name = header(req, 'x-github-event')!;
    const body = await readBody(req);
    if (!(await probot.webhooks.verify(body, header(req, 'x-hub-signature-256')!).catch(() => false)))
      return reply(res, { status: 400, text: 'signature does not match event payload and secret' });
    let payload: unknown;
    try {
      payload = JSON.parse(body);
    } catch {
      return reply(res, { status: 400, text: 'Invalid JSON: the body is not a JSON payload' });
    }
    const event = { id, name, payload } as EmitterWebhookEvent;
    const { handling, copy } = ids.claim(id, () => probot.webhooks.receive(event));
    let timer: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      handling.then(
        (): Answer => ({ status: 200, text: copy ? 'ok (a copy of a delivery handled here)' : 'ok' }),
        (e: Error): Answer => ({ status: 500, text: `failed: ${e.message.split('\n')[0]}` }),
      ),
      new Promise<Answer>((resolve) => {
        timer = setTimeout(
          () => resolve({ status: 202, text: 'accepted: handled after this answer' }),
          o.answerMs,
        );
      }),
    ]);
    clearTimeout(timer);
    reply(res, answered);
    const answerMs = now() - began;
    const outcome = await handling.then(
      () => (copy ? 'a copy, not handled again' : 'handled'),
      (e: Error) => `failed (${e.message.split('\n')[0]})`,
    );
    probot.log.info(
      { delivery: id, event: name, status: answered.status, answerMs, handleMs: now() - began },
      `interlock: delivery ${id} (${name}) answered ${answered.status} in ${answerMs} ms, ${outcome} in ${now() - began} ms`,
    );
  };
  return {
    /** Waits for the deliveries in hand (a shutdown), at most `ms`; how many were left. */
    drain: (ms: number) => ids.drain(ms),
    handle: (req: IncomingMessage, res: ServerResponse) =>
      handle(req, res).catch((e: Error) => {
        probot.log.error(e);
        reply(res, { status: 500, text: 'the delivery could not be read' });
      }),
  };
}
