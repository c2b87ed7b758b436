/** Run lookup for a command: which runs on the journal branch are about the subject, and which one a command means. */
import { parseSubjectLabel, type SubjectRef, subjectLabel } from '../../journal/run-id.js';
import type { Command } from '../commands/parse.js';

/** `issue #42` or `pull request #7`, for replies. */
export const subjectWord = (s: SubjectRef) => `${s.kind === 'pr' ? 'pull request' : 'issue'} #${s.number}`;

/** The most runs one `/interlock status` shows. */
const MAX_STATUS_RUNS = 10;

/** The runs a command is about (with all of the subject's runs), why there are none, or which to ask about. */
type RunPick =
  | { kind: 'runs'; runIds: string[]; mine: string[] }
  | { kind: 'refused'; why: string }
  | { kind: 'which'; runIds: string[] };

/** What lookup knows of a run: its id, the subject its journal records, whether it has ended. */
export interface RunFacts {
  runId: string;
  subject: string | undefined;
  ended: boolean;
}

/**
 * The runs a command is about, matched by the subject their journal records (never by the id's suffix): the one
 * it names, which must be a run of this subject; else the subject's only run, or the only one that has not
 * ended (a run started afresh beside an ended one); `status` takes up to ten. Several open runs and no name is
 * a question back, not a guess. Pure.
 */
export function pickRuns(command: Command, subject: SubjectRef, runs: readonly RunFacts[]): RunPick {
  const label = subjectLabel(subject);
  const mine = runs
    .filter((r) => r.subject === label)
    .map((r) => r.runId)
    .sort();
  if (command.runId !== undefined) {
    const named = runs.find((r) => r.runId === command.runId);
    if (named && named.subject === label) return { kind: 'runs', runIds: [named.runId], mine };
    const other = named?.subject ? parseSubjectLabel(named.subject) : undefined;
    return {
      kind: 'refused',
      why: named
        ? `run \`${command.runId}\` is about ${other ? subjectWord(other) : 'another subject'}, not ${subjectWord(subject)}: comment there`
        : `there is no run \`${command.runId}\` on ${subjectWord(subject)}${mine.length ? ` (its runs: ${mine.map((r) => `\`${r}\``).join(', ')})` : ''}`,
    };
  }
  if (mine.length === 0)
    return { kind: 'refused', why: `there is no interlock run on ${subjectWord(subject)}` };
  if (command.kind === 'status') return { kind: 'runs', runIds: mine.slice(0, MAX_STATUS_RUNS), mine };
  const open = runs.filter((r) => r.subject === label && !r.ended).map((r) => r.runId);
  if (mine.length > 1 && open.length === 1) return { kind: 'runs', runIds: open, mine };
  if (mine.length > 1) return { kind: 'which', runIds: open.length ? open.sort() : mine };
  return { kind: 'runs', runIds: mine, mine };
}
