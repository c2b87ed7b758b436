/** What an injected fault does to a request: an error answer, a held socket, or a dropped one. */
import type { ServerResponse } from 'node:http';
import { type Fault, SECONDARY_RATE_LIMIT_MESSAGE } from './faults.js';
import { HttpError } from './http-error.js';
import type { RateWindow } from './rate-limit.js';
import type { Reply } from './router.js';

const MESSAGES: Record<number, string> = {
  409: 'Conflict',
  500: 'Internal Server Error',
  502: 'Server Error',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** The answer for a fault that is one; undefined for `timeout` and `drop`. */
export function faultReply(fault: Fault, window: RateWindow, subject: string): Reply | undefined {
  switch (fault.kind) {
    case 'status':
      return {
        status: fault.status,
        body: new HttpError(
          fault.status,
          fault.message ?? MESSAGES[fault.status] ?? `Error ${fault.status}`,
        ).body(),
      };
    case 'too-many-requests':
      return {
        status: 429,
        body: new HttpError(429, SECONDARY_RATE_LIMIT_MESSAGE).body(),
        headers: { 'retry-after': String(fault.retryAfter ?? 1) },
      };
    case 'secondary-rate-limit':
      return {
        status: 403,
        body: new HttpError(403, SECONDARY_RATE_LIMIT_MESSAGE).body(),
        headers: { 'retry-after': String(fault.retryAfter ?? 1) },
      };
    case 'primary-rate-limit':
      return {
        status: 403,
        body: new HttpError(403, `API rate limit exceeded for ${subject}.`).body(),
        headers: {
          'x-ratelimit-remaining': '0',
          'x-ratelimit-used': String(window.limit),
          'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + (fault.resetInSeconds ?? 1)),
        },
      };
    default:
      return undefined;
  }
}

/**
 * Holds (`timeout`) or destroys (`drop`) the connection; false for faults that answer.
 * Held responses stay in `held` until their socket closes, so the server can end them on close.
 */
export function breakConnection(fault: Fault, res: ServerResponse, held: Set<ServerResponse>): boolean {
  if (fault.kind === 'drop') {
    res.socket?.destroy();
    return true;
  }
  if (fault.kind === 'timeout') {
    held.add(res);
    res.on('close', () => held.delete(res));
    if (fault.holdMs !== undefined) setTimeout(() => res.socket?.destroy(), fault.holdMs).unref();
    return true;
  }
  return false;
}
