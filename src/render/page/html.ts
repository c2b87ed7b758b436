/**
 * HTML that is escaped by construction: `html` is a tagged template whose every interpolation is escaped unless
 * it is already `Html` (made by `html` itself). Hostile text (issue titles, node outputs, guidance, agent
 * messages) can only reach a page as text. Pure.
 */

/** A piece of HTML made by `html` (or `raw` for a constant the code itself wrote). */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Text as HTML text or attribute value (quoted with `"`). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

type Part = Html | string | number | boolean | undefined | null | readonly Part[];

function render(p: Part): string {
  if (p === undefined || p === null || p === false) return '';
  if (p instanceof Html) return p.text;
  if (Array.isArray(p)) return p.map(render).join('');
  return escapeHtml(String(p));
}

/** A template whose interpolations are escaped; arrays are joined, `undefined`, `null` and `false` are nothing. */
export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0]!;
  parts.forEach((p, i) => {
    out += render(p) + strings[i + 1]!;
  });
  return new Html(out);
}

/** A constant the code wrote (CSS, an SVG made from escaped parts): never pass text from outside. */
export const raw = (text: string): Html => new Html(text);

/** How long ago, in words: `3 min`, `2 h 5 min`, `4 d 1 h`. */
export function ago(since: string, now: string): string {
  const ms = Date.parse(now) - Date.parse(since);
  if (!Number.isFinite(ms) || ms < 0) return 'just now';
  const min = Math.floor(ms / 60_000);
  if (min < 1) return 'under a minute';
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return `${h} h ${min % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}
