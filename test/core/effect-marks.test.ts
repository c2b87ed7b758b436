// The one trust rule for effect marks (issue 34): a mark is interlock's own only when its value hashes, with its
// key, to a hash the journal recorded at dispatch; a trailer or marker with the key alone, a made-up value, or a
// value copied from another effect is not. No I/O.
import { describe, expect, it } from 'vitest';
import {
  bodyMark,
  bodyMarksOf,
  commitMark,
  commitMarkOf,
  isOwnMark,
  isRunMark,
  markHash,
  markValue,
  ownBody,
  ownComment,
  recordedMarks,
} from '../../src/protocol/attempt/effect-marks.js';

const secret = Buffer.alloc(32, 7);
const key = 'ship/issue-7/push';
const value = markValue(secret, key, 1);
const recorded = new Set([markHash(key, value)]);
const bot = { type: 'Bot' };

describe('effect marks: a mark is interlock’s own only by a value whose hash the journal recorded', () => {
  it('takes the mark the attempt made', () => {
    expect(isOwnMark(commitMarkOf(`fix\n\n${commitMark(key, value)}\n`), key, recorded)).toBe(true);
    expect(ownBody(`text\n\n${bodyMark(key, value)}`, key, recorded)).toBe(true);
    expect(ownComment({ user: bot, body: bodyMark(key, value) }, key, recorded)).toBe(true);
  });
  it('refuses the key alone, as marks were written before values (and as anyone can write)', () => {
    expect(commitMarkOf(`fix\n\nInterlock-Effect: ${key}\n`)).toEqual({ idempotencyKey: key });
    expect(isOwnMark(commitMarkOf(`fix\n\nInterlock-Effect: ${key}\n`), key, recorded)).toBe(false);
    expect(ownBody(`<!-- interlock:effect ${key} -->`, key, recorded)).toBe(false);
  });
  it('refuses a made-up value, and one made with another secret', () => {
    expect(isOwnMark({ idempotencyKey: key, value: 'ab'.repeat(32) }, key, recorded)).toBe(false);
    expect(
      isOwnMark({ idempotencyKey: key, value: markValue(Buffer.alloc(32, 8), key, 1) }, key, recorded),
    ).toBe(false);
  });
  it('refuses a real value copied under another key (of another node, or another cycle)', () => {
    const other = 'ship/issue-7/comment';
    const both = new Set([...recorded, markHash(other, markValue(secret, other, 1))]);
    expect(isOwnMark({ idempotencyKey: other, value }, other, both)).toBe(false);
    expect(isOwnMark({ idempotencyKey: key, value }, other, both)).toBe(false);
  });
  it('refuses a mark when the journal recorded none (a journal from before values)', () => {
    expect(isOwnMark({ idempotencyKey: key, value }, key, new Set())).toBe(false);
  });
  it('refuses a comment that carries the real mark but no bot wrote', () => {
    expect(ownComment({ user: { type: 'User' }, body: bodyMark(key, value) }, key, recorded)).toBe(false);
  });
  it('a branch tip is the run’s own by a recorded mark of any of its effects, never by the run id alone', () => {
    expect(isRunMark({ idempotencyKey: key, value }, 'ship/issue-7', recorded)).toBe(true);
    expect(isRunMark({ idempotencyKey: 'ship/issue-7/other' }, 'ship/issue-7', recorded)).toBe(false);
    expect(
      isRunMark({ idempotencyKey: 'ship/issue-7/other', value: 'cd'.repeat(32) }, 'ship/issue-7', recorded),
    ).toBe(false);
    expect(isRunMark({ idempotencyKey: key, value }, 'ship/issue-8', recorded)).toBe(false);
  });
  it('reads the last trailer of a message and every marker of a body', () => {
    const msg = `a\n\nInterlock-Effect: x/y\n${commitMark(key, value)}\n`;
    expect(commitMarkOf(msg)).toEqual({ idempotencyKey: key, value });
    expect(bodyMarksOf(`${bodyMark('a/b', value)} and <!-- interlock:effect c/d -->`)).toEqual([
      { idempotencyKey: 'a/b', value },
      { idempotencyKey: 'c/d' },
    ]);
  });
  it('collects the hashes the dispatches recorded, of one node or of the run', () => {
    const events = [
      { type: 'NodeDispatched', node: 'push', effect_mark: 'a'.repeat(64) },
      { type: 'NodeDispatched', node: 'build' },
      { type: 'NodeDispatched', node: 'comment', effect_mark: 'b'.repeat(64) },
    ] as unknown as Parameters<typeof recordedMarks>[0]['events'];
    expect([...recordedMarks({ events }, 'push')]).toEqual(['a'.repeat(64)]);
    expect([...recordedMarks({ events })]).toEqual(['a'.repeat(64), 'b'.repeat(64)]);
  });
});
