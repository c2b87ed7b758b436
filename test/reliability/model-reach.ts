/**
 * The model-based test's reach (issue 45): how many sequences met the repository's daily cost cap on their own (a
 * node of theirs escalated at it), and how many went on to the wedge's shape after it (an approve-rerun or a
 * rerun-from of the run after that escalation). Asserted from `npm test`'s seed in both worlds, so a change that
 * makes the cap unreachable fails rather than passes unseen. Shared by model-faces.test.ts and model-github.test.ts.
 */
import { expect } from 'vitest';
import type { Journal } from '../../src/journal/events/events.js';

export class CapReach {
  cap = 0;
  after = 0;

  /** Counts one sequence from its journals' texts; `counts` says which runs are the sequence's own. */
  count(texts: Iterable<string>, counts: (runId: string) => boolean = () => true): void {
    let cap = false;
    let after = false;
    for (const text of texts) {
      let j: Journal;
      try {
        j = JSON.parse(text) as Journal;
      } catch {
        continue;
      }
      if (!Array.isArray(j.events) || !counts(j.run_id)) continue;
      const at = j.events.findIndex(
        (e) => e.type === 'NodeEscalated' && e.report.budget?.limit?.daily_usd !== undefined,
      );
      if (at < 0) continue;
      cap = true;
      after ||= j.events.slice(at).some((e) => e.type === 'RerunApproved' || e.type === 'RerunFromApproved');
    }
    if (cap) this.cap++;
    if (after) this.after++;
  }

  /** The line the test prints after its sequences. */
  line(world: string): string {
    return `${world}: ${this.cap} sequence(s) reached the daily cap, ${this.after} went on past it (approve-rerun, rerun-from)\n`;
  }

  toJSON(): { cap: number; after: number } {
    return { cap: this.cap, after: this.after };
  }

  /** The seed's sequences met the cap: else the generator no longer reaches it, and the test says how to see. */
  expectReached(replay: string): void {
    expect(
      this.cap,
      `sequences that reached the daily cap (none did: the generator no longer meets it; ${replay})`,
    ).toBeGreaterThan(0);
  }
}
