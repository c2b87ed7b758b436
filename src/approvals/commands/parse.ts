// Comment commands: reading at most one `/approve`, `/approve-rerun`, `/rerun-from`, `/settle`, `/fail-run` or `/interlock status`
// from a comment body (and the guidance lines after an approval), with the reason when one is refused.
import { isNodeName } from '../../graph/schema/subgraph.js';
import { validRunId } from '../../journal/run-id.js';
import { guidanceAfter } from './guidance.js';

/** A command a person gave in a comment. Node names and run ids are already validated. */
export type Command =
  | { kind: 'approve-rerun'; node: string; runId?: string; guidance?: string }
  | { kind: 'approve'; node: string; runId?: string; guidance?: string }
  | { kind: 'rerun-from'; node: string; runId?: string; guidance?: string }
  | { kind: 'settle'; node: string; note: string; runId?: string }
  | { kind: 'fail-run'; reason: string; runId?: string }
  | { kind: 'status'; runId?: string };

export type ParsedComment =
  | { kind: 'none' }
  | { kind: 'command'; command: Command; line: number }
  | { kind: 'refused'; reason: string; name?: string };

/** GitHub's own limit on a comment body; a longer body is not read for commands. */
export const MAX_COMMENT_CHARS = 65_536;
/** The longest note or reason kept from a command line. */
export const MAX_TEXT_CHARS = 1_000;

/** Command names, ASCII only: a look-alike slash or letter makes a different word, never a command. */
const NAMES = ['/approve', '/approve-rerun', '/settle', '/fail-run', '/interlock', '/rerun-from'] as const;
type Name = (typeof NAMES)[number];

const USAGE: Record<Name, string> = {
  '/approve': '/approve <node> [run-id], then guidance for the node on the lines below',
  '/approve-rerun': '/approve-rerun <node> [run-id], then guidance on the lines below',
  '/settle': '/settle [--run=<run-id>] <node> <what you checked>',
  '/fail-run': '/fail-run [--run=<run-id>] <reason>',
  '/interlock': '/interlock status [run-id]',
  '/rerun-from': '/rerun-from <node> [run-id], then guidance for the node on the lines below',
};

/** Shows untrusted text in a reply without letting it format, mention or break out of a code span. */
export function shown(text: string, max = 40): string {
  const cut = [...text].slice(0, max).join('');
  const clean = cut.replace(/[\u0000-\u001f\u007f`]/g, '?');
  return `\`${clean}${cut.length < text.length ? '…' : ''}\``;
}

/** The lines of a comment that are plain text: not in fenced code, HTML comments or quotes. */
function plainLines(body: string): Array<{ text: string; line: number }> {
  const out: Array<{ text: string; line: number }> = [];
  let fence: { char: string; len: number } | null = null;
  let inHtmlComment = false;
  const lines = body.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  lines.forEach((text, i) => {
    const f = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(text);
    if (fence) {
      if (f && f[1]![0] === fence.char && f[1]!.length >= fence.len && f[2]!.trim() === '') fence = null;
      return;
    }
    if (f && !(f[1]![0] === '`' && f[2]!.includes('`'))) {
      fence = { char: f[1]![0]!, len: f[1]!.length };
      return;
    }
    if (inHtmlComment) {
      if (text.includes('-->')) inHtmlComment = false;
      return;
    }
    const open = /^ {0,3}<!--/.exec(text);
    if (open) {
      if (!text.slice(open[0].length).includes('-->')) inHtmlComment = true;
      return;
    }
    if (/^ {0,3}>/.test(text)) return;
    out.push({ text, line: i + 1 });
  });
  return out;
}

/** A line's command name and arguments, when the line is one of ours (up to three leading spaces). */
function commandOf(text: string): { name: Name; args: string } | null {
  const m = /^ {0,3}(\/\S*)(?:[ \t]+(.*))?$/.exec(text.replace(/[ \t]+$/, ''));
  if (!m) return null;
  const name = m[1] as Name;
  if (!NAMES.includes(name)) return null;
  const args = m[2] ?? '';
  // `/interlock <word>` is also how routes start graphs; only `status` belongs here.
  if (name === '/interlock' && args.split(/[ \t]+/)[0] !== 'status') return null;
  return { name, args };
}

const LOOKS_LIKE_COMMAND =
  /(^|\n) {0,3}\/(approve|approve-rerun|rerun-from|settle|fail-run|interlock[ \t]+status)\b/;

/**
 * Reads at most one command from a comment body: a line of its own, outside code blocks, HTML comments and
 * quotes, ASCII only. Two commands, bad arguments or an oversized body are refused with the reason.
 */
export function parseComment(body: string | null | undefined): ParsedComment {
  if (!body) return { kind: 'none' };
  if (body.length > MAX_COMMENT_CHARS && [...body].length > MAX_COMMENT_CHARS) {
    return LOOKS_LIKE_COMMAND.test(body)
      ? {
          kind: 'refused',
          reason: `the comment is ${[...body].length} characters long, over ${MAX_COMMENT_CHARS}: commands are read only from shorter comments`,
        }
      : { kind: 'none' };
  }
  const found = plainLines(body).flatMap((l) => {
    const c = commandOf(l.text);
    return c ? [{ ...c, line: l.line }] : [];
  });
  if (found.length === 0) return { kind: 'none' };
  if (found.length > 1) {
    return {
      kind: 'refused',
      reason: `one command per comment: found ${found.map((c) => `\`${c.name}\` (line ${c.line})`).join(', ')}; post each in a comment of its own`,
    };
  }
  const { name, args, line } = found[0]!;
  const r = parseArgs(name, args);
  if ('reason' in r) return { kind: 'refused', reason: r.reason, name };
  const { command } = r;
  if (command.kind === 'approve' || command.kind === 'approve-rerun' || command.kind === 'rerun-from') {
    const g = guidanceAfter(body, line);
    if (g.kind === 'refused') return { kind: 'refused', reason: g.reason, name };
    if (g.kind === 'some') command.guidance = g.text;
  }
  return { kind: 'command', command, line };
}

function parseArgs(name: Name, args: string): { command: Command } | { reason: string } {
  const usage = (why: string) => ({ reason: `${why}; usage: \`${USAGE[name]}\`` });
  let rest = args.trim();
  let runId: string | undefined;
  const flag = /^--run=(\S*)(?:[ \t]+|$)/.exec(rest);
  if (flag) {
    runId = flag[1]!;
    rest = rest.slice(flag[0].length);
  }
  const words = rest === '' ? [] : rest.split(/[ \t]+/);
  const badNode = (node: string) =>
    isNodeName(node)
      ? null
      : usage(
          `${shown(node)} is not a node name (letters, digits, "_" and "-", starting with a letter or "_", at most 64; an instance adds its key: work[3]; a sub-graph's node follows its node: review/build)`,
        );
  const text = (t: string, what: string) =>
    [...t].length > MAX_TEXT_CHARS ? usage(`the ${what} is longer than ${MAX_TEXT_CHARS} characters`) : null;
  switch (name) {
    case '/approve':
    case '/approve-rerun':
    case '/rerun-from': {
      if (runId === undefined && words.length === 2) runId = words.pop();
      if (words.length !== 1) return usage(words.length ? 'too many words' : 'name the node');
      const node = words[0]!;
      const bad = badNode(node) ?? checkRun(runId, usage);
      if (bad) return bad;
      const run = runId !== undefined ? { runId } : {};
      const kind = name === '/approve' ? 'approve' : name === '/rerun-from' ? 'rerun-from' : 'approve-rerun';
      return { command: { kind, node, ...run } };
    }
    case '/settle': {
      const node = words[0];
      if (!node) return usage('name the node and say what you checked');
      const note = rest.slice(node.length).trim();
      const bad =
        badNode(node) ??
        checkRun(runId, usage) ??
        (note ? text(note, 'note') : usage('say what you checked after the node name'));
      if (bad) return bad;
      return { command: { kind: 'settle', node, note, ...(runId !== undefined ? { runId } : {}) } };
    }
    case '/fail-run': {
      const bad =
        checkRun(runId, usage) ?? (rest ? text(rest, 'reason') : usage('give the reason the run ends'));
      if (bad) return bad;
      return { command: { kind: 'fail-run', reason: rest, ...(runId !== undefined ? { runId } : {}) } };
    }
    case '/interlock': {
      // words[0] is `status`.
      if (runId === undefined && words.length === 2) runId = words.pop();
      if (words.length !== 1) return usage('too many words');
      const bad = checkRun(runId, usage);
      if (bad) return bad;
      return { command: { kind: 'status', ...(runId !== undefined ? { runId } : {}) } };
    }
  }
}

function checkRun(
  runId: string | undefined,
  usage: (why: string) => { reason: string },
): { reason: string } | null {
  if (runId === undefined || validRunId(runId)) return null;
  return usage(
    `${shown(runId)} is not a run id (letters, digits, ".", "_", "-" and "/" between names; no "..")`,
  );
}
