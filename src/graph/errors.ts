/** One problem in an input file, located for a person to fix. */
export interface SourceError {
  file: string;
  line: number;
  col: number;
  message: string;
}

export function formatSourceError(e: SourceError): string {
  return `${e.file}:${e.line}:${e.col}: ${e.message}`;
}

/** Thrown when a graph (or its skills) cannot be loaded; carries every error found. */
export class GraphError extends Error {
  constructor(readonly errors: SourceError[]) {
    super(errors.map(formatSourceError).join('\n'));
    this.name = 'GraphError';
  }
}

/** Edit distance, for "did you mean" suggestions. */
function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

/** The closest candidate within a small edit distance, or undefined. */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

export function suggestion(word: string, candidates: Iterable<string>): string {
  const m = didYouMean(word, candidates);
  return m === undefined ? '' : ` (did you mean "${m}"?)`;
}

/** Where and why JSON.parse failed; V8 names a position, or quotes the text around an unexpected token. */
export function jsonParseError(text: string, raw: string): { offset: number; message: string } {
  const at = /^(.*?)(?: in JSON)? at position (\d+)/.exec(raw);
  if (at) return { offset: Number(at[2]), message: at[1]! };
  // `Unexpected token 'x', "text" is not valid JSON`; a long text is cut to `..."ten before, ten after"...`
  const token = /^Unexpected token '(.)', (\.\.\.)?"([\s\S]*)"(?:\.\.\.)? is not valid JSON$/.exec(raw);
  if (token) {
    const message = `unexpected character "${token[1]}"`;
    if (token[2]) {
      const around = text.indexOf(token[3]!);
      if (around >= 0) return { offset: around + 10, message };
    } else {
      // The text is quoted from its start: the token is the first such character outside a string.
      let inString = false;
      for (let i = 0; i < text.length; i++) {
        const ch = text[i];
        if (inString) {
          if (ch === '\\') i++;
          else if (ch === '"') inString = false;
        } else if (ch === '"') inString = true;
        else if (ch === token[1]) return { offset: i, message };
      }
    }
  }
  return { offset: text.trimEnd().length, message: raw };
}
