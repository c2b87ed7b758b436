/**
 * A failed command's output, bounded for the journal, the retry's context, the escalation report and the comment:
 * ANSI stripped, the first lines that look like an error (with the few lines after each) and the last lines, the
 * lines between them replaced by a note that says how many were cut. Fed chunk by chunk as the command runs, it
 * keeps only what it may show, however long the output. Pure: text in, text out.
 */

/** At most this many characters of excerpt (a few kB: it is journaled, and shown to the retry and to people). */
export const EXCERPT_MAX_CHARS = 2500;
/** Error lines kept from the start: a matching line and the lines after it, up to this many in all. */
const HEAD_LINES = 14;
/** Lines kept after each error line (a stack frame, an expected/actual pair). */
const AFTER_ERROR = 5;
/** Lines kept from the end. */
const TAIL_LINES = 20;
/** A single line longer than this is clipped (minified code, a base64 blob). */
const LINE_MAX = 300;

/** Lines that usually say what went wrong, in the tools a check runs (test runners, compilers, npm, shells). */
const ERROR_LINE =
  /\b(error|errors|err!|fail|failed|failure|failures|failing|assert\w*|exception|panic(ked)?|traceback|expected|not ok|cannot|unable|denied|refused|fatal)\b|\u2717|\u2716|\u00d7|\bE\d{3,}\b/i;

/** An error line that names the error itself (`AssertionError [...]: ...`, `error TS2322: ...`, `FAIL ...`). */
const ERROR_HEADLINE =
  /^\s*([\w.]*(Error|Exception)\b|(error|fatal|panic|fail|failed|not ok)\b|[\u2717\u2716\u00d7])/i;

// CSI sequences (colours, cursor moves), OSC sequences (titles, links) and the two-byte escapes.
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

/** Text without terminal escapes; a line redrawn with `\r` keeps what was drawn last. */
export function stripAnsi(text: string): string {
  return text
    .replace(ANSI, '')
    .split('\n')
    .map((line) => {
      const l = line.endsWith('\r') ? line.slice(0, -1) : line;
      const cr = l.lastIndexOf('\r');
      return cr >= 0 ? l.slice(cr + 1) : l;
    })
    .join('\n');
}

interface Excerpt {
  /** The lines kept, with `[… N lines cut …]` where lines were left out. */
  text: string;
  /** Whether anything was left out. */
  cut: boolean;
  /** The first line that looks like an error, trimmed (for a one-line message). */
  first_error?: string;
  /** The last non-empty line, trimmed. */
  last_line?: string;
  /** Lines of output in all. */
  lines: number;
}

interface Kept {
  n: number;
  text: string;
}

const clipLine = (l: string) => (l.length > LINE_MAX ? `${l.slice(0, LINE_MAX)}… [line clipped]` : l);

/** Collects an excerpt of output fed to it in chunks. */
export class OutputExcerpt {
  private pending = '';
  private count = 0;
  private readonly head: Kept[] = [];
  private readonly tail: Kept[] = [];
  private after = 0;
  private firstError: string | undefined;
  private firstHeadline: string | undefined;
  /** Lines after a headline that ends with `:` (its message goes on below it: Node's assert). */
  private readonly headlineNext: string[] = [];
  private lastLine: string | undefined;

  push(chunk: string | Buffer): void {
    this.pending += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    const parts = this.pending.split('\n');
    this.pending = parts.pop() ?? '';
    for (const p of parts) this.line(p);
    // A line with no end in sight is taken as it is, so a stream without newlines stays bounded.
    if (this.pending.length > 4 * LINE_MAX) {
      this.line(this.pending);
      this.pending = '';
    }
  }

  private line(raw: string): void {
    const text = clipLine(stripAnsi(raw));
    this.count += 1;
    const n = this.count;
    if (text.trim()) this.lastLine = text.trim();
    if (this.firstHeadline?.endsWith(':') && this.headlineNext.length < FOLLOW_LINES)
      this.headlineNext.push(text.trim());
    const isError = ERROR_LINE.test(text);
    if (isError && this.firstError === undefined) this.firstError = text.trim();
    if (isError && this.firstHeadline === undefined && ERROR_HEADLINE.test(text))
      this.firstHeadline = text.trim();
    if (this.head.length < HEAD_LINES && (isError || this.after > 0)) {
      this.head.push({ n, text });
      this.after = isError ? AFTER_ERROR : this.after - 1;
    }
    this.tail.push({ n, text });
    if (this.tail.length > TAIL_LINES) this.tail.shift();
  }

  /** The excerpt of everything fed so far; undefined when there was no output. */
  finish(): Excerpt | undefined {
    if (this.pending) {
      this.line(this.pending);
      this.pending = '';
    }
    if (this.count === 0 || this.lastLine === undefined) return undefined;
    const byLine = new Map<number, string>();
    for (const k of [...this.head, ...this.tail]) byLine.set(k.n, k.text);
    const kept = [...byLine.entries()].sort((a, b) => a[0] - b[0]);
    const tailStart = this.tail[0]?.n ?? 1;
    fitWithin(kept, tailStart, EXCERPT_MAX_CHARS);
    const out: string[] = [];
    let prev = 0;
    for (const [n, text] of kept) {
      if (n > prev + 1) out.push(cutNote(n - prev - 1));
      out.push(text);
      prev = n;
    }
    if (prev < this.count) out.push(cutNote(this.count - prev));
    return {
      text: out.join('\n'),
      cut: out.some((l) => l.startsWith('[… ')),
      ...(this.firstHeadline || this.firstError
        ? {
            first_error: this.firstHeadline
              ? withDetail(this.firstHeadline, this.headlineNext)
              : this.firstError,
          }
        : {}),
      last_line: this.lastLine,
      lines: this.count,
    };
  }
}

/** Lines read after a headline that ends with `:`, for the values it goes on to name. */
const FOLLOW_LINES = 12;

/**
 * A headline that ends with `:` with the first differing values after it, so a one-line message keeps what
 * failed: Node's `Expected values to be strictly equal:` with `5 !== 6`, its deep-equal diff's first `+`/`-`
 * pair, or an `Expected:`/`Received:` pair; else its first line of text. Stops at the stack trace.
 */
function withDetail(headline: string, next: readonly string[]): string {
  const lines: string[] = [];
  for (const l of next) {
    if (/^at\s/.test(l) || l === '}') break;
    if (l) lines.push(l);
  }
  const compared = lines.find((l) => /\s(!==|!=|===|==)\s/.test(l));
  if (compared) return `${headline} ${compared}`;
  const diff = lines.filter((l) => /^[+-]\s/.test(l) && !/^\+ actual - expected/.test(l));
  const plus = diff.find((l) => l.startsWith('+'))?.replace(/\s+/g, ' ');
  const minus = diff.find((l) => l.startsWith('-'))?.replace(/\s+/g, ' ');
  if (plus && minus)
    return `${headline} ${plus.replace(/,$/, '')} (actual), ${minus.replace(/,$/, '')} (expected)`;
  const expected = lines.find((l) => /^Expected:/.test(l));
  const received = lines.find((l) => /^Received:/.test(l));
  if (expected && received) return `${headline} ${expected}, ${received}`;
  return lines[0] && !/^\+ actual - expected/.test(lines[0]) ? `${headline} ${lines[0]}` : headline;
}

const cutNote = (n: number) => `[… ${n} line${n === 1 ? '' : 's'} cut …]`;

/** Drops kept lines until the excerpt fits: first the oldest of the last lines, then the latest error lines. */
function fitWithin(kept: [number, string][], tailStart: number, max: number): void {
  const size = () => kept.reduce((s, [, t]) => s + t.length + 1, 0) + 40 * 3;
  while (kept.length > 1 && size() > max) {
    const i = kept.findIndex(([n]) => n >= tailStart);
    // Keep at least the very last line of the tail, and the first error line of the head.
    if (i >= 0 && i < kept.length - 1) kept.splice(i, 1);
    else {
      let lastHead = 0;
      kept.forEach(([n], j) => {
        if (n < tailStart) lastHead = j;
      });
      kept.splice(Math.max(1, lastHead), 1);
    }
  }
}

/** The excerpt of a whole text. */
export function excerptOf(text: string): Excerpt | undefined {
  const e = new OutputExcerpt();
  e.push(text);
  return e.finish();
}

/** A Markdown fence that no run of backticks in `text` can close. */
export function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}
