/**
 * Whether a mark on GitHub is interlock's own (issue 34): the one trust rule of the `push`, `pull_request`,
 * `comment` and `release` effects. A mark names the effect's idempotency key and carries a value only the
 * executor that dispatched the attempt could make: an HMAC, under a secret made in that process and never written
 * anywhere, of the key and the attempt. The attempt's `NodeDispatched` records only `effect_mark`, the SHA-256 of
 * the key and that value, written before the effect acts; a mark is interlock's when its key is the one asked
 * for and the hash of its key and value is one the journal recorded. So a trailer or a marker written by anyone
 * who can push or comment (run ids are predictable) is not interlock's, and one copied from another effect does
 * not hash to this key's record. A mark made before this rule (the key alone) is never trusted: see
 * docs/effects.md. Pure: the secret is the caller's.
 */
import { createHash, createHmac } from 'node:crypto';
import type { Journal } from '../../journal/events/events.js';

/** The commit trailer's name. */
const TRAILER = 'Interlock-Effect';

/** A mark as found: the key it names and the value it carries (absent on a mark made before values). */
interface EffectMark {
  idempotencyKey: string;
  value?: string;
}

const VALUE = '[0-9a-f]{64}';

/** The value an attempt's mark carries: HMAC-SHA256 of the key and the attempt under the executor's secret. */
export function markValue(secret: Uint8Array, idempotencyKey: string, attempt: number): string {
  return createHmac('sha256', secret).update(`${idempotencyKey}\n${attempt}`).digest('hex');
}

/** What the journal records of a mark (`NodeDispatched.effect_mark`): SHA-256 of its key and value. */
export function markHash(idempotencyKey: string, value: string): string {
  return createHash('sha256').update(`${idempotencyKey}\n${value}`).digest('hex');
}

/** The trailer line of an effect's commit. */
export const commitMark = (idempotencyKey: string, value: string) => `${TRAILER}: ${idempotencyKey} ${value}`;

/** The hidden marker of an effect in a pull request's, comment's or release's body. */
export const bodyMark = (idempotencyKey: string, value: string) =>
  `<!-- interlock:effect ${idempotencyKey} ${value} -->`;

/** The trailer of a commit message (its last one), if it has one. */
export function commitMarkOf(message: string): EffectMark | undefined {
  const all = [...message.matchAll(new RegExp(`^${TRAILER}: (\\S+)(?: (${VALUE}))?[ \\t]*$`, 'gm'))];
  const m = all[all.length - 1];
  return m ? { idempotencyKey: m[1]!, ...(m[2] ? { value: m[2] } : {}) } : undefined;
}

/** Every effect marker in a body. */
export function bodyMarksOf(body: string | null | undefined): EffectMark[] {
  return [...(body ?? '').matchAll(new RegExp(`<!-- interlock:effect (\\S+)(?: (${VALUE}))? -->`, 'g'))].map(
    (m) => ({ idempotencyKey: m[1]!, ...(m[2] ? { value: m[2] } : {}) }),
  );
}

/** The mark hashes the journal recorded: of `node`'s attempts, or of every attempt of the run. */
export function recordedMarks(journal: Pick<Journal, 'events'>, node?: string): ReadonlySet<string> {
  const out = new Set<string>();
  for (const e of journal.events)
    if (e.type === 'NodeDispatched' && e.effect_mark && (node === undefined || e.node === node))
      out.add(e.effect_mark);
  return out;
}

/** The rule: a mark is interlock's own for `key` when it names `key` and its value hashes to a recorded one. */
export function isOwnMark(
  mark: EffectMark | undefined,
  idempotencyKey: string,
  recorded: ReadonlySet<string>,
): boolean {
  return (
    !!mark?.value &&
    mark.idempotencyKey === idempotencyKey &&
    recorded.has(markHash(mark.idempotencyKey, mark.value))
  );
}

/** A mark of any effect of run `runId`: a branch tip it made may be moved on by a later effect of the run. */
export function isRunMark(
  mark: EffectMark | undefined,
  runId: string,
  recorded: ReadonlySet<string>,
): boolean {
  return (
    !!mark?.value &&
    mark.idempotencyKey.startsWith(`${runId}/`) &&
    recorded.has(markHash(mark.idempotencyKey, mark.value))
  );
}

/** A body carries interlock's own mark for `key`. */
export function ownBody(
  body: string | null | undefined,
  idempotencyKey: string,
  recorded: ReadonlySet<string>,
): boolean {
  return ownMarkIn(body, idempotencyKey, recorded) !== undefined;
}

/** The mark of interlock's own for `key` a body carries, if any. */
export function ownMarkIn(
  body: string | null | undefined,
  idempotencyKey: string,
  recorded: ReadonlySet<string>,
): EffectMark | undefined {
  return bodyMarksOf(body).find((m) => isOwnMark(m, idempotencyKey, recorded));
}

/**
 * A comment is the effect's own when a bot (an app's or the Action's token) wrote it and its body carries the
 * key's own mark: a person cannot post as a bot, and a bot cannot make the value.
 */
export function ownComment(
  c: { user?: { type?: string } | null; body?: string | null },
  idempotencyKey: string,
  recorded: ReadonlySet<string>,
): boolean {
  return c.user?.type === 'Bot' && ownBody(c.body, idempotencyKey, recorded);
}
