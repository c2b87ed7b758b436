/**
 * The App's webhook as GitHub runs it: each event is POSTed, signed (`X-Hub-Signature-256`), to the webhook URL
 * with a new `X-GitHub-Delivery` guid, and every attempt is recorded as the deliveries API lists it (`status`,
 * `status_code`, `duration`, `redelivery`). GitHub waits 10 s for an answer and never delivers a failed attempt
 * again by itself; a redelivery (`POST /app/hook/deliveries/{id}/attempts`) sends the same body under the same
 * guid and is recorded as a new attempt with `redelivery: true`.
 */
import { createHmac } from 'node:crypto';
import type { Schema } from './types.js';

export type DeliveryItem = Schema<'hook-delivery-item'>;

export interface DeliveryRecord extends DeliveryItem {
  readonly body: string;
}

export interface WebhookTarget {
  url: string;
  secret: string;
}

/** GitHub's wait for an answer (github.com; GitHub Enterprise Server waits 30 s). */
export const HOOK_TIMEOUT_MS = 10_000;

export class Webhooks {
  /** Every attempt, oldest first. */
  readonly deliveries: DeliveryRecord[] = [];
  target?: WebhookTarget;
  timeoutMs = HOOK_TIMEOUT_MS;
  readonly #inFlight = new Set<Promise<unknown>>();
  #nextId = 70_000;
  #guids = 0;

  constructor(private readonly now: () => Date) {}

  /** Sends `event` as GitHub would, under a new guid; resolves with the attempt as recorded. */
  deliver(event: string, payload: Record<string, unknown>): Promise<DeliveryRecord> {
    const guid = `0000${(++this.#guids).toString(16)}-b361-11eb-836d-0e4f3503ccbe`.slice(-36);
    return this.#track(this.#send(event, JSON.stringify(payload), guid, false));
  }

  /** Asks for an attempt again (`POST …/attempts`): false when no such attempt exists. */
  redeliver(id: number): boolean {
    const d = this.deliveries.find((x) => Number(x.id) === id);
    if (!d) return false;
    void this.#track(this.#send(d.event, d.body, d.guid, true));
    return true;
  }

  /** Waits until every delivery and redelivery under way has its answer recorded. */
  async settled(): Promise<void> {
    while (this.#inFlight.size) await Promise.allSettled([...this.#inFlight]);
  }

  #track<T>(p: Promise<T>): Promise<T> {
    this.#inFlight.add(p);
    void p.finally(() => this.#inFlight.delete(p)).catch(() => undefined);
    return p;
  }

  async #send(event: string, body: string, guid: string, redelivery: boolean): Promise<DeliveryRecord> {
    const started = Date.now();
    const at = this.now();
    const payload = JSON.parse(body) as {
      action?: string;
      installation?: { id?: number };
      repository?: { id?: number };
    };
    let status = 'failed to connect';
    let code = 502;
    if (this.target) {
      try {
        const r = await fetch(this.target.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'GitHub-Hookshot/local',
            'x-github-event': event,
            'x-github-delivery': guid,
            'x-hub-signature-256': `sha256=${createHmac('sha256', this.target.secret).update(body).digest('hex')}`,
          },
          body,
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        await r.arrayBuffer().catch(() => undefined);
        code = r.status;
        status = r.ok ? 'OK' : `Invalid HTTP Response: ${r.status}`;
      } catch (e) {
        status = (e as Error).name === 'TimeoutError' ? 'timed out' : 'failed to connect';
      }
    }
    const record: DeliveryRecord = {
      id: this.#nextId++,
      guid,
      delivered_at: at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      redelivery,
      duration: (Date.now() - started) / 1000,
      status,
      status_code: code,
      event,
      action: payload.action ?? null,
      installation_id: payload.installation?.id ?? null,
      repository_id: payload.repository?.id ?? null,
      body,
    };
    this.deliveries.push(record);
    return record;
  }
}
