/** One command to carry out, whichever face and event it came from, and what came of it. */

import type { Graph } from '../graph/model.js';
import type { Journal } from '../journal/events/events.js';
import type { SubjectRef } from '../journal/run-id.js';
import type { PageBinding } from '../protocol/commands/page-binding.js';
import type { Command, ParsedComment } from './commands/parse.js';
import type { Outcome } from './deps.js';
import { refusedReply } from './replies/replies.js';

export interface CommandRequest {
  parsed: Exclude<ParsedComment, { kind: 'none' }>;
  login: string;
  /** The comment's URL, or the button delivery's: recorded as the source, and applied once. */
  source: string;
  subject: SubjectRef;
  /** The subject's labels as the event showed them. */
  labels: string[];
  defaultBranch: string;
  /** For a button: the node it names, found in the run's graph. */
  resolveNode?: (graph: Graph, journal: Journal) => string | undefined;
  /** From the maintainers' page: what the form showed; refused as out of date when the journal moved on. */
  bound?: PageBinding;
  /** When the command was made (ms): what the person saw was written before it (journal/freshness.ts). */
  causeAt?: number;
}

export interface Executed {
  outcome: Outcome;
  /** The reply to post on the subject; none for a redelivery that changes nothing. */
  reply?: string;
  /** Decided before any journal was read (the configuration, the person's permission): no stale read behind it. */
  beforeJournal?: true;
}

/** A command refused, with the reply that says why. */
export function refused(login: string, why: string, command?: Command): Executed {
  return {
    outcome: { kind: 'refused', why, ...(command ? { command } : {}) },
    reply: refusedReply(login, why),
  };
}
