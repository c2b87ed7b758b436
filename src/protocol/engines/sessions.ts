/**
 * Sessions: which agent session an attempt of a node with `session:` continues. The nodes that name a session
 * continue it in the order they complete: an attempt resumes the session the last completed node of that session
 * left (Claude Code `--resume <id> --fork-session`, so each attempt has a session of its own and a failed one
 * leaves no trace in the next; Codex `exec resume <id>`, Copilot CLI and Gemini CLI `--resume <id>`, which continue
 * it in place).
 * A retry does not continue its failed attempt's session unless the graph asks (`sessions.<name>.resume_failed`);
 * a session a failed attempt also used (a Codex thread or Gemini CLI session it continued, a serialized chain's
 * call) is not resumed at all: the retry starts a fresh session, and its task envelope tells it what the earlier
 * nodes produced. Pure.
 */
import type { Approach, Engine, Graph, GraphNode } from '../../graph/model.js';
import type { Journal, JournalEvent } from '../../journal/events/events.js';

/** The session an attempt continues. */
export interface SessionResume {
  id: string;
  engine: Engine;
  /** Codex, Copilot CLI: what earlier attempts of the session counted (their usage on resume is cumulative). */
  prior?: { input_tokens: number; output_tokens: number };
  /**
   * What the session's transcripts folder must hash to (`transcripts_sha256`): `last`, as the session's last
   * attempt left it on this machine; `from`, as the resumed attempt left it (what its cache entry holds). Absent
   * where the journal recorded none (nodes not isolated, a journal from before).
   */
  transcripts?: { last?: string; from?: string };
}

type Ended = Extract<JournalEvent, { type: 'NodeRecorded' | 'NodeFailed' }>;

const ended = (e: JournalEvent): e is Ended => e.type === 'NodeRecorded' || e.type === 'NodeFailed';

/** What the attempts that used thread `id` counted, summed. */
function threadUsage(journal: Journal, id: string): { input_tokens: number; output_tokens: number } {
  let input = 0;
  let output = 0;
  for (const e of journal.events) {
    if (!ended(e) || e.session_id !== id) continue;
    input += e.usage.input_tokens ?? 0;
    output += e.usage.output_tokens ?? 0;
  }
  return { input_tokens: input, output_tokens: output };
}

/** The session this attempt of `node` continues, or undefined for a fresh one. */
export function sessionToResume(
  graph: Graph,
  journal: Journal,
  node: GraphNode,
  approach: Approach,
): SessionResume | undefined {
  const engine = approach.engine;
  if (!node.session || !engine || approach.prompt === undefined) return undefined;
  const members = new Set(graph.nodes.filter((n) => n.session?.name === node.session!.name).map((n) => n.id));
  const usable = (e: Ended) => e.engine === engine && typeof e.session_id === 'string';
  const events = journal.events.filter(ended).filter(usable);
  const last = (p: (e: Ended) => boolean) => [...events].reverse().find(p);
  let from: Ended | undefined;
  if (node.session.resume_failed) from = last((e) => e.type === 'NodeFailed' && e.node === node.id);
  from ??= last((e) => e.type === 'NodeRecorded' && members.has(e.node));
  if (!from) return undefined;
  const id = from.session_id!;
  // A failed attempt that used the same session after it (Codex continues threads in place; a serialized
  // chain's nodes share one call's session): that session holds the failure, so it is not resumed.
  const after = journal.events.slice(journal.events.indexOf(from) + 1);
  const tainted = after.some((e) => e.type === 'NodeFailed' && e.session_id === id);
  if (tainted && !node.session.resume_failed) return undefined;
  // The folder is written by the session's attempts alone: the last of them, whatever its end, left it as it is.
  const latest = [...journal.events]
    .reverse()
    .find((e): e is Ended => ended(e) && members.has(e.node) && e.engine === engine);
  const transcripts = {
    ...(latest?.transcripts_sha256 ? { last: latest.transcripts_sha256 } : {}),
    ...(from.transcripts_sha256 ? { from: from.transcripts_sha256 } : {}),
  };
  const bound = Object.keys(transcripts).length ? { transcripts } : {};
  // Codex and Copilot CLI count a resumed session's usage from its start.
  const cumulative = engine === 'codex' || engine === 'copilot';
  return cumulative ? { id, engine, prior: threadUsage(journal, id), ...bound } : { id, engine, ...bound };
}
