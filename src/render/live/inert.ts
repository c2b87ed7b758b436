/**
 * Untrusted text (an agent's words, a failure's excerpt, guidance) made inert for Markdown on GitHub: on one line,
 * no mention that pings (`@` gets a zero-width space), no HTML (a fake `</details>` is shown, not obeyed), no
 * Markdown that starts a link, an image, emphasis, a heading or a table cell, and no bare URL made into a link.
 */
export function inertMarkdown(text: string, max = 300): string {
  const one = text
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const cut = one.length > max ? `${one.slice(0, max - 1)}…` : one;
  return cut
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]()!#|~]/g, (c) => `\\${c}`)
    .replace(/@/g, '@\u200b')
    .replace(/:\/\//g, ':\u200b//')
    .replace(/\bwww\./gi, (w) => `${w.slice(0, 3)}\u200b.`);
}
