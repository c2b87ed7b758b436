// The live view's pace (issue 38): at most one edit per interval, the latest view wins, the final one always goes
// last; a 30-minute attempt at the default 30 s makes at most 61 edits.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readTuning } from '../../src/os/tuning.js';
import type { LiveView } from '../../src/render/live/live.js';
import { pacedLive } from '../../src/runner/attempt/live-pacer.js';

/** The interval a face uses unless INTERLOCK_LIVE_EDIT_SECONDS sets another. */
const LIVE_EDIT_INTERVAL_MS = readTuning({}).INTERLOCK_LIVE_EDIT_SECONDS * 1000;

const view = (n: number, state: LiveView['state'] = 'running'): LiveView => ({
  node: 'implement',
  attempt: 1,
  elapsedMs: n,
  usage: { turns: n, input_tokens: 0, output_tokens: 0 },
  steps: [],
  stepCount: n,
  state,
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the live view is paced', () => {
  it('a 30-minute attempt with a step every 2 s: at most 61 edits (one each 30 s and the final), the final view last', async () => {
    vi.useFakeTimers();
    const sent: LiveView[] = [];
    const paced = pacedLive(LIVE_EDIT_INTERVAL_MS, async (v) => {
      sent.push(v);
    });
    for (let t = 0; t < 30 * 60_000; t += 2000) {
      paced.push(view(t));
      await vi.advanceTimersByTimeAsync(2000);
    }
    await paced.end(view(30 * 60_000, 'ended'));
    expect(sent.length).toBeLessThanOrEqual(61);
    expect(sent.length).toBeGreaterThanOrEqual(59);
    expect(sent.at(-1)!.state).toBe('ended');
    // The latest view wins: each edit but the first shows the step seen last before it.
    expect(sent[0]!.elapsedMs).toBe(30_000 - 2000);
  });

  it('a failed edit is told and does not stop the later ones', async () => {
    const errors: string[] = [];
    let calls = 0;
    const paced = pacedLive(
      0,
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('502');
      },
      (e) => errors.push(e.message),
    );
    paced.push(view(1));
    await paced.end(view(2, 'ended'));
    expect(calls).toBe(2);
    expect(errors).toEqual(['502']);
  });
});
