/**
 * The journal never carries a secret of the step: every text about to be written (outputs, usage, session ids,
 * failure messages and excerpts, connections: whatever a node could have put there) is searched for each secret,
 * as it is and as base64 (standard and URL-safe, at any of the three alignments inside a longer encoding), and a
 * match is replaced by `[secret removed]`, as is a secret's start where the text was cut short (`…`) after it. A key holding a secret is dropped with its value. Pure.
 */

/** What stands where a secret was. */
export const SECRET_MARK = '[secret removed]';

/**
 * Shorter values are not looked for: a short value is no secret worth the name, and replacing it would cut
 * ordinary words and ids out of the journal.
 */
export const MIN_SECRET_LENGTH = 8;

/** The runs of base64 characters that encode `secret` wherever it stands in a longer encoded text. */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms: string[] = [];
  for (let k = 0; k < 3; k++) {
    const encoded = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64');
    // Only the characters whose six bits all come from the secret.
    const core = encoded.slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + bytes.length)) / 6));
    forms.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

/** Every form of the step's secrets to look for, longest first (so a longer one is removed whole). */
export function secretForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const s of secrets) {
    if (s.length < MIN_SECRET_LENGTH) continue;
    forms.add(s);
    for (const f of base64Forms(s)) if (f.length >= MIN_SECRET_LENGTH) forms.add(f);
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** The shortest start of a secret removed where a text was cut short (`…`) in the middle of it. */
const CUT_PREFIX = 4;

/**
 * `text` without a secret's start where it stands cut short: before each `…` (what a check quotes, an agent's step,
 * is cut to a bound with one), the longest start of a form, of `CUT_PREFIX` characters or more, is removed.
 */
function withoutCutForms(text: string, forms: readonly string[]): string {
  if (!text.includes('…')) return text;
  return text
    .split('…')
    .map((part, i, parts) => {
      if (i === parts.length - 1) return part;
      let longest = 0;
      for (const f of forms)
        for (let k = Math.min(f.length - 1, part.length); k >= CUT_PREFIX && k > longest; k--)
          if (part.endsWith(f.slice(0, k))) longest = k;
      return longest ? `${part.slice(0, -longest)}${SECRET_MARK}` : part;
    })
    .join('…');
}

function scrub(text: string, forms: readonly string[]): string {
  let out = text;
  for (const f of forms) if (out.includes(f)) out = out.split(f).join(SECRET_MARK);
  return withoutCutForms(out, forms);
}

/** `value` with every secret replaced, and where each was found (`outputs.token`, `failures.0.excerpt`). */
export function redactSecrets<T>(value: T, secrets: readonly string[]): { value: T; found: string[] } {
  const forms = secretForms(secrets);
  const found: string[] = [];
  if (forms.length === 0) return { value, found };
  const walk = (v: unknown, at: string): unknown => {
    if (typeof v === 'string') {
      const clean = scrub(v, forms);
      if (clean !== v) found.push(at || '(the value)');
      return clean;
    }
    if (Array.isArray(v)) return v.map((x, i) => walk(x, at ? `${at}.${i}` : String(i)));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        const path = at ? `${at}.${k}` : k;
        if (scrub(k, forms) !== k) {
          found.push(`${at ? `${at}.` : ''}(a name holding a secret, dropped)`);
          continue;
        }
        out[k] = walk(x, path);
      }
      return out;
    }
    return v;
  };
  return { value: walk(value, '') as T, found };
}
