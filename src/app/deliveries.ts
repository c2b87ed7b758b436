/**
 * Missed deliveries found again (issue 50). GitHub records a delivery as failed when the App is down or does not
 * answer within 10 s, and never sends it again by itself. A sweep lists the App's recent deliveries with its JWT
 * (`GET /app/hook/deliveries`, newest first, by cursor) and asks once for each delivery id (`guid`) that no
 * attempt handled (`POST /app/hook/deliveries/{delivery_id}/attempts`). Nothing is kept between sweeps: a guid
 * with a redelivery among its attempts was asked for already (by this replica, another, or an earlier process)
 * and is left alone, so every delivery is asked for at most once. At start the sweep also asks again for the
 * deliveries answered 202 (accepted, handled after the answer) before this process started, which the process
 * before may have died holding; the journal makes a command delivered twice apply once.
 */

export interface DeliveryAttempt {
  id: number | bigint;
  guid: string;
  delivered_at: string;
  redelivery: boolean;
  status_code: number;
  event: string;
}

/** The App's Octokit authenticated with its JWT (`probot.auth()`), as far as a sweep uses it. */
export interface JwtClient {
  request(
    route: string,
    params?: Record<string, unknown>,
  ): Promise<{ data: unknown; headers: Record<string, string | number | undefined> }>;
}

interface SweepOptions {
  /** How far back the sweep looks (ms; GitHub keeps deliveries for 3 days). */
  windowMs: number;
  /** At start: when this process started (a 202 before then may have died unhandled). */
  startedAt?: number;
  /** Pages of 100 read at most, and redeliveries asked at most, per sweep. */
  maxPages?: number;
  maxAsks?: number;
  now?: () => number;
}

export interface SweepResult {
  /** Attempts read, and requests made (lists and asks). */
  listed: number;
  requests: number;
  /** The guids asked for again, oldest first. */
  asked: string[];
  /** Guids left for the next sweep (past `maxAsks`). */
  left: number;
}

const handled = (code: number) => code >= 200 && code < 400 && code !== 202;
const failed = (code: number) => code < 200 || code >= 400;

/** The attempt to ask for again for each guid that needs it, oldest first (pure: the sweep's decision). */
export function toRedeliver(attempts: readonly DeliveryAttempt[], startedAt?: number): DeliveryAttempt[] {
  const byGuid = new Map<string, DeliveryAttempt[]>();
  for (const a of attempts) byGuid.set(a.guid, [...(byGuid.get(a.guid) ?? []), a]);
  const out: DeliveryAttempt[] = [];
  for (const all of byGuid.values()) {
    if (all.some((a) => a.redelivery || handled(a.status_code))) continue;
    const newest = all.reduce((x, y) => (Date.parse(y.delivered_at) > Date.parse(x.delivered_at) ? y : x));
    const diedWith =
      startedAt !== undefined && newest.status_code === 202 && Date.parse(newest.delivered_at) < startedAt;
    if (all.every((a) => failed(a.status_code)) || diedWith) out.push(newest);
  }
  return out.sort((x, y) => Date.parse(x.delivered_at) - Date.parse(y.delivered_at));
}

const nextCursor = (link: string | number | undefined): string | undefined => {
  const next = /<([^>]+)>;\s*rel="next"/.exec(String(link ?? ''))?.[1];
  return next ? (new URL(next).searchParams.get('cursor') ?? undefined) : undefined;
};

/** One sweep: lists the window's deliveries and asks again for those no attempt handled. */
export async function sweepDeliveries(client: JwtClient, o: SweepOptions): Promise<SweepResult> {
  const now = o.now ?? Date.now;
  const since = now() - o.windowMs;
  const attempts: DeliveryAttempt[] = [];
  let requests = 0;
  let cursor: string | undefined;
  for (let page = 0; page < (o.maxPages ?? 10); page++) {
    const r = await client.request('GET /app/hook/deliveries', {
      per_page: 100,
      ...(cursor ? { cursor } : {}),
    });
    requests++;
    const items = Array.isArray(r.data) ? (r.data as DeliveryAttempt[]) : [];
    const recent = items.filter((a) => Date.parse(a.delivered_at) >= since);
    attempts.push(...recent);
    cursor = nextCursor(r.headers.link);
    if (!cursor || recent.length < items.length) break;
  }
  const due = toRedeliver(attempts, o.startedAt);
  const max = o.maxAsks ?? 50;
  const asked: string[] = [];
  for (const a of due.slice(0, max)) {
    requests++;
    try {
      await client.request('POST /app/hook/deliveries/{delivery_id}/attempts', { delivery_id: a.id });
      asked.push(a.guid);
    } catch {
      // GitHub refused this one (gone, or a limit): the next sweep sees it still unhandled and asks again.
    }
  }
  return { listed: attempts.length, requests, asked, left: Math.max(0, due.length - max) };
}

/** `sweep words` for the log. */
export function sweepWords(r: SweepResult): string {
  const left = r.left ? `, ${r.left} left for the next sweep` : '';
  return `interlock: ${r.listed} recent deliveries read, ${r.asked.length} asked for again${left} (${r.requests} requests)`;
}

export interface Sweeps {
  /** The sweep at start (undefined when it failed: the log says why). */
  first: Promise<SweepResult | undefined>;
  stop(): void;
}

/** A sweep at start, then every `everyMs` (0: only at start); a failed sweep is logged and the next one tries. */
export function startSweeps(
  client: () => Promise<JwtClient>,
  o: { windowMs: number; everyMs: number; startedAt: number },
  log: { info(m: string): void; warn(m: string): void },
): Sweeps {
  let running: Promise<SweepResult | undefined> | undefined;
  const once = (startedAt?: number) => {
    running ??= client()
      .then((c) => sweepDeliveries(c, { windowMs: o.windowMs, ...(startedAt ? { startedAt } : {}) }))
      .then(
        (r) => {
          log.info(sweepWords(r));
          return r;
        },
        (e: Error) => {
          log.warn(
            `interlock: the sweep of missed deliveries failed (${e.message}); the next one tries again`,
          );
          return undefined;
        },
      )
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const first = once(o.startedAt);
  const timer = o.everyMs > 0 ? setInterval(() => void once(), o.everyMs) : undefined;
  timer?.unref();
  return { first, stop: () => clearInterval(timer) };
}
