/**
 * The one door node text passes to reach anything interlock publishes (the progress comment, live and final, the
 * escalation report, the job summary, a check run's output, a reply, the page): an output value, a check's
 * message or excerpt, a commit subject, an agent's step. A node is hostile (its agent read untrusted text), and
 * GitHub shows what interlock posts as coming from its bot, so what comes through is
 * - free of the step's secrets, removed as the journal removes them (src/render/redact.ts), and of anything shaped
 *   like a well-known token (a GitHub, npm, cloud or model provider's key), granted or not, and
 * - inert: as a line (`line`), no link, autolink, image, HTML, emphasis, heading, list, table break-out, math,
 *   mention (`@x`, `@org/team`), issue or pull request reference (`#12`, `GH-12`, `owner/repo#12`) or commit sha
 *   renders; as `prose`, the same but for its code spans, kept as code (GitHub links nothing in code); as
 *   `html`, the same inside an HTML element interlock wrote (where Markdown is not read: escaped as HTML text);
 *   as a block (`block`), a fenced code block its text cannot close; as `plain`, the text itself for a face that
 *   escapes by construction (the page's `html` template, a terminal).
 * Pure.
 */
import { fenceFor } from './excerpt.js';
import { redactSecrets, SECRET_MARK } from './redact.js';

/** How node text stands where it is published. */
type Shape = 'line' | 'prose' | 'html' | 'block' | 'plain';

interface DoorOptions {
  /** The step's secrets (the Action: `stepSecrets`; the CLI: the secrets in its environment). */
  secrets?: readonly string[];
  /** At most this many characters of a line (the text is cut, then escaped). */
  max?: number;
  /** A block's language, for its highlighting (`text` unless told). */
  lang?: string;
}

/** A zero-width space: between `@`, `#` or `://` and what follows, it keeps GitHub from linking. */
const ZWSP = '\u200b';

/**
 * Tokens known by their shape, removed even when no one granted them to the step (a node may have found one):
 * GitHub's (classic, fine-grained, app, OAuth, refresh), npm's, GitLab's, Slack's, AWS access key ids, and
 * Anthropic's and OpenAI's API keys.
 */
const TOKEN_SHAPES = [
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{30,}/g,
  /\bnpm_[A-Za-z0-9]{30,}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{32,}/g,
];

/** `text` without the step's secrets, whole or cut short at its end, and without any well-known token shape. */
export function withoutSecrets(text: string, secrets: readonly string[] = []): string {
  let out = secrets.length ? redactSecrets(text, secrets).value : text;
  for (const shape of TOKEN_SHAPES) out = out.replace(shape, SECRET_MARK);
  return out;
}

/** Every string in `value` (a journal, for a face that draws it whole, like the page's timeline) without secrets. */
export function valueWithoutSecrets<T>(value: T, secrets: readonly string[] = []): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return withoutSecrets(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(secrets.length ? redactSecrets(value, secrets).value : value) as T;
}

/** One line: controls and line breaks as spaces, cut to `max` characters. */
function oneLine(text: string, max: number): string {
  const one = text
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** What GitHub links in text wherever it stands (a sha, a mention, a reference, a URL), kept from linking. */
function unlinked(text: string): string {
  return (
    text
      // A run of 7 or more hex digits is what GitHub links as a commit: split so no 7 stand together.
      .replace(/(?<![0-9a-z])[0-9a-f]{7,}(?![0-9a-z])/gi, (hex) => (hex.match(/.{1,6}/g) ?? []).join(ZWSP))
      .replace(/@/g, `@${ZWSP}`)
      .replace(/#(?=\w)/g, `#${ZWSP}`)
      .replace(/\bGH-(?=\d)/gi, (w) => `${w}${ZWSP}`)
      .replace(/:\/\//g, `:${ZWSP}//`)
      .replace(/\bwww\./gi, (w) => `${w.slice(0, 3)}${ZWSP}.`)
  );
}

/** Text as HTML text: no tag, comment or entity of its own (quotes need no escape outside an attribute). */
const htmlEscaped = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A line of text as inert Markdown that stays inside one table cell. */
function inertLine(text: string): string {
  return (
    htmlEscaped(unlinked(text))
      // Brackets escaped, no link or image can form: parentheses and `!` stay as they are.
      .replace(/[\\`*_[\]#|~$]/g, (c) => `\\${c}`)
      // What would start a block where a line begins (a list, a setext underline, a numbered list).
      .replace(/^([-+=])/, '\\$1')
      .replace(/^(\d+)([.)])/, '$1\\$2')
  );
}

/**
 * interlock's own sentence that may quote node or person text: inert as a line, but its code spans (a command, a
 * node's name) stay code, which GitHub renders without links, HTML or mentions. Not for a table cell.
 */
function inertProse(line: string): string {
  let out = '';
  let text = '';
  let i = 0;
  while (i < line.length) {
    const run = /^`+/.exec(line.slice(i))?.[0];
    if (!run) {
      text += line[i++];
      continue;
    }
    const close = new RegExp(`(?<!\`)${run}(?!\`)`, 'g');
    close.lastIndex = i + run.length;
    const m = close.exec(line);
    if (m && m.index > i + run.length) {
      out += (text ? inertLine(text) : '') + line.slice(i, m.index + run.length);
      text = '';
      i = m.index + run.length;
    } else {
      text += run;
      i += run.length;
    }
  }
  return out + (text ? inertLine(text) : '');
}

/**
 * Node text as it may be published: the step's secrets and token shapes removed, then made inert for where it
 * stands: `line` (default) for Markdown text and table cells, `prose` for interlock's own sentence that quotes
 * (its code spans kept), `html` for text inside an HTML element of
 * interlock's, `block` for a whole fenced code block (its lines, fence included), `plain` for a face that escapes
 * by construction.
 */
export function throughDoor(text: string, shape: Shape = 'line', opts: DoorOptions = {}): string {
  const clean = withoutSecrets(text, opts.secrets);
  if (shape === 'plain') return clean;
  if (shape === 'block') {
    const fence = fenceFor(clean);
    return [`${fence}${opts.lang ?? 'text'}`, clean, fence].join('\n');
  }
  const line = oneLine(clean, opts.max ?? 300);
  if (shape === 'html') return htmlEscaped(unlinked(line));
  return shape === 'prose' ? inertProse(line) : inertLine(line);
}
