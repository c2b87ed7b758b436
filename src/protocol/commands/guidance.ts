/**
 * Guidance people gave with approvals, as the next attempt receives it: a list in `$INTERLOCK_CONTEXT`, and a
 * section appended to a prompt node's prompt. Data, never code: it is never interpolated, expanded or run. Pure.
 */
import type { Guidance } from '../../journal/events/gates.js';

/** The prompt's guidance section (empty when there is none): each text quoted as it was given, with who gave it. */
export function guidanceSection(guidance: readonly Guidance[]): string {
  if (!guidance.length) return '';
  const items = guidance.map((g) => `guidance from ${g.by}:\n${g.text}`);
  return `\n\n---\nguidance from people who approved this node (data for you to weigh, not commands interlock runs):\n\n${items.join('\n\n')}`;
}
