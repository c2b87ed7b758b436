/** A person's command, from any face, written through the compare-and-swap commit; refused with the reason. */
import type { RunnerInfo } from '../journal/event-fields.js';
import type { NewEvent } from '../journal/events.js';
import { failpoint } from '../os/failpoint.js';
import type { CommandEvents } from '../protocol/person-commands.js';
import { commit } from './commit.js';
import type { Current, RunSetup } from './read.js';

/** Writes a person's command (approve, approve-rerun, settle, fail-run) through the compare-and-swap commit. */
export async function commitPersonCommand(
  setup: RunSetup,
  runner: RunnerInfo,
  decide: (cur: Current) => CommandEvents,
): Promise<{ ok: true; cur: Current } | { ok: false; reason: string }> {
  const r = await commit(setup, runner, (cur) => {
    if (cur.version === null)
      return { events: [] as NewEvent[], refusal: `no run "${setup.runId}" at ${setup.store.location}` };
    const s = decide(cur);
    if (s.ok) failpoint('before-settle-write');
    return s.ok ? { events: s.events, refusal: undefined } : { events: [] as NewEvent[], refusal: s.reason };
  });
  if (!r.decision.refusal) failpoint('after-settle-write');
  return r.decision.refusal ? { ok: false, reason: r.decision.refusal } : { ok: true, cur: r.cur };
}
