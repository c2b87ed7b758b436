// Guidance in a comment: the lines after an approval's command line, kept as they were written (outer blank lines
// trimmed), bounded; text for the next attempt to read, never run.
import { MAX_GUIDANCE_CHARS } from '../../journal/events/gates.js';

type GuidanceLines = { kind: 'none' } | { kind: 'some'; text: string } | { kind: 'refused'; reason: string };

/** The guidance after the command on line `line` (1-based) of the comment body. */
export function guidanceAfter(body: string, line: number): GuidanceLines {
  const lines = body.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const text = lines
    .slice(line)
    .join('\n')
    .replace(/^(?:[ \t]*\n)+/, '')
    .trimEnd();
  if (!text) return { kind: 'none' };
  const length = [...text].length;
  if (length > MAX_GUIDANCE_CHARS)
    return {
      kind: 'refused',
      reason: `the guidance after the command is ${length} characters long, over ${MAX_GUIDANCE_CHARS}: shorten it (or put the details in a file the node reads) and post the approval again`,
    };
  return { kind: 'some', text };
}
