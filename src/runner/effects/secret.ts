/**
 * The secret an effect's mark is made with (src/protocol/attempt/effect-marks.ts): random, made once in this process on
 * first use, held in its memory only: never written to the journal, a file, a log or a node's environment. The
 * journal gets only each attempt's `effect_mark` hash, in the dispatch written before the effect acts; a later
 * job (a retry after a crash) recognises the mark by that hash, never needing the secret.
 */
import { randomBytes } from 'node:crypto';
import type { Journal } from '../../journal/events/events.js';
import { markHash, markValue, recordedMarks } from '../../protocol/attempt/effect-marks.js';
import type { Decision } from '../../protocol/decide.js';

let secret: Buffer | undefined;

function effectSecret(): Buffer {
  secret ??= randomBytes(32);
  return secret;
}

/** A dispatch of an effect node carries the hash of the mark its attempt will leave; any other decision as it is. */
export function withEffectMark(decision: Decision): Decision {
  if (decision.kind !== 'dispatch' || !decision.node.effect) return decision;
  const { node, attempt, context } = decision;
  const idempotencyKey = context.idempotency_key;
  const effect_mark = markHash(idempotencyKey, markValue(effectSecret(), idempotencyKey, attempt));
  const events = decision.events.map((e) =>
    e.type === 'NodeDispatched' && e.node === node.id && e.attempt === attempt ? { ...e, effect_mark } : e,
  );
  return { ...decision, events };
}

/** What an effect attempt marks with and trusts: its own value, and the hashes the journal recorded. */
export interface EffectMarks {
  /** The value this attempt's mark carries. */
  value: string;
  /** The hashes of this node's attempts: a mark of one of them is this effect, done. */
  own: ReadonlySet<string>;
  /** The hashes of every attempt of the run: a branch tip one of them made may be moved on. */
  run: ReadonlySet<string>;
}

export function effectMarks(
  journal: Pick<Journal, 'events'>,
  node: string,
  idempotencyKey: string,
  attempt: number,
): EffectMarks {
  return {
    value: markValue(effectSecret(), idempotencyKey, attempt),
    own: recordedMarks(journal, node),
    run: recordedMarks(journal),
  };
}
