/**
 * A failed attempt's output excerpts in Markdown (the escalation report, the comment, the job summary): one
 * folded block per failure that kept an excerpt. The output is untrusted text: it passes the door
 * (src/render/door.ts) as a fenced block its text cannot close, the check's name and the log's place as lines.
 */
import type { Failure } from '../journal/events/fields.js';
import { throughDoor } from './door.js';

/** `<details>` blocks with each failure's excerpt and where the whole output is; none when no failure kept one. */
export function failureOutputMarkdown(
  node: string,
  attempt: number,
  failures: readonly Failure[],
  secrets: readonly string[] = [],
): string[] {
  const lines: string[] = [];
  for (const f of failures) {
    if (typeof f.excerpt !== 'string' || !f.excerpt) continue;
    // The summary is HTML interlock wrote, where Markdown is not read: the names pass as HTML text.
    const line = (t: string) => throughDoor(t, 'html', { secrets, max: 200 });
    const where = typeof f.log === 'string' ? ` (whole output: ${line(f.log)})` : '';
    lines.push(
      `<details><summary>Output of <code>${line(f.check)}</code>, ${node} attempt ${attempt}${where}</summary>`,
      '',
      throughDoor(f.excerpt, 'block', { secrets }),
      '',
      '</details>',
    );
  }
  return lines;
}
