/** The words interlock shows people for a run's state: the status word of a heading, the label that asks for a person. */
import type { RunStatus } from '../journal/state.js';

/** The label put on a subject whose run waits for a person (held or escalated); removed once a person answered. */
export const NEEDS_HUMAN_LABEL = 'interlock: needs human';

const STATUS_WORD: Record<RunStatus, string> = {
  running: '🔄 running',
  blocked: '⏸️ waiting for a person',
  completed: '✅ completed',
  failed: '❌ failed',
};

/** The run status as a heading shows it: `✅ completed`; an unknown status as it is. */
export function statusWord(status: string): string {
  return STATUS_WORD[status as RunStatus] ?? status;
}
