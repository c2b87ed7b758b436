/** A person's command, from any face, written through the compare-and-swap commit; refused with the reason. */

import type { NewEvent } from '../journal/events/events.js';
import type { RunnerInfo } from '../journal/events/fields.js';
import { failpoint } from '../os/crash-failpoint.js';
import type { CommandEvents } from '../protocol/commands/person-commands.js';
import { commit } from './journal-io/commit.js';
import type { RunSetup, RunSnapshot } from './journal-io/read.js';

/**
 * Writes a person's command (approve, approve-rerun, settle, fail-run) through the compare-and-swap commit; `base`:
 * the run as the caller folded it, whose state the first read takes when it reads that same journal (commit.ts).
 */
export async function commitPersonCommand(
  setup: RunSetup,
  runner: RunnerInfo,
  decide: (cur: RunSnapshot) => CommandEvents,
  base?: Omit<RunSnapshot, 'graph'>,
): Promise<{ ok: true; cur: RunSnapshot } | { ok: false; reason: string; cur: RunSnapshot }> {
  const r = await commit(
    setup,
    runner,
    (cur) => {
      if (cur.version === null)
        return { events: [] as NewEvent[], refusal: `no run "${setup.runId}" at ${setup.store.location}` };
      const s = decide(cur);
      if (s.ok) failpoint('before-person-command-write');
      return s.ok
        ? { events: s.events, refusal: undefined }
        : { events: [] as NewEvent[], refusal: s.reason };
    },
    base ? { fold: { base } } : {},
  );
  if (!r.chosen.refusal) failpoint('after-person-command-write');
  return r.chosen.refusal ? { ok: false, reason: r.chosen.refusal, cur: r.cur } : { ok: true, cur: r.cur };
}
