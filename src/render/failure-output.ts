/**
 * A failed attempt's output excerpts in Markdown (the escalation report, the comment, the job summary): one
 * folded block per failure that kept an excerpt, fenced so its text cannot close the fence, with no @mention
 * that would notify anyone (the output is untrusted text).
 */
import type { Failure } from '../journal/events/fields.js';
import { fenceFor } from './excerpt.js';

const quiet = (s: string) => s.replace(/@/g, '@\u200b');

/** `<details>` blocks with each failure's excerpt and where the whole output is; none when no failure kept one. */
export function failureOutputMarkdown(node: string, attempt: number, failures: readonly Failure[]): string[] {
  const lines: string[] = [];
  for (const f of failures) {
    if (typeof f.excerpt !== 'string' || !f.excerpt) continue;
    const text = quiet(f.excerpt);
    const fence = fenceFor(text);
    const where = typeof f.log === 'string' ? ` (whole output: ${quiet(f.log).replace(/[<>]/g, '')})` : '';
    lines.push(
      `<details><summary>Output of <code>${quiet(f.check).replace(/[<>&]/g, '')}</code>, ${node} attempt ${attempt}${where}</summary>`,
      '',
      `${fence}text`,
      text,
      fence,
      '',
      '</details>',
    );
  }
  return lines;
}
