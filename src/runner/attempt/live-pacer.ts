/**
 * The agent's live view, paced (issue 38): a view is published at most once per interval (the latest wins, sent
 * when the interval is over), and the final one always, after every earlier edit. At 30 s a 30-minute attempt
 * makes at most 61 edits, within GitHub's content-creation limits (80 a minute, 500 an hour).
 */
import type { LiveView } from '../../render/live/live.js';

interface PacedLive {
  push: (view: LiveView) => void;
  /** Publishes the final view and waits for every edit. */
  end: (view: LiveView) => Promise<void>;
  /** How many views were published. */
  edits: () => number;
}

export function pacedLive(
  intervalMs: number,
  publish: (view: LiveView) => Promise<void>,
  onError: (e: Error) => void = () => {},
  clock: () => number = Date.now,
): PacedLive {
  // The first edit waits an interval too: the comment already says the node runs.
  let last = clock();
  let pending: LiveView | undefined;
  let timer: NodeJS.Timeout | undefined;
  let publishing: Promise<void> = Promise.resolve();
  let edits = 0;
  const send = (v: LiveView) => {
    last = clock();
    edits += 1;
    publishing = publishing.then(() => publish(v)).catch((e: unknown) => onError(e as Error));
  };
  const flush = () => {
    timer = undefined;
    if (pending) send(pending);
    pending = undefined;
  };
  return {
    push: (v) => {
      pending = v;
      const wait = last + intervalMs - clock();
      if (wait <= 0 && !timer) flush();
      else if (!timer) timer = setTimeout(flush, wait);
    },
    end: async (v) => {
      if (timer) clearTimeout(timer);
      timer = undefined;
      pending = undefined;
      send(v);
      await publishing;
    },
    edits: () => edits,
  };
}
