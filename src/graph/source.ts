import { type Document, isMap, isNode, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { didYouMean, type SourceError } from './errors.js';

/** A YAML or JSON text with source positions, for errors that point at a line and column. */
export interface SourceDoc {
  file: string;
  doc: Document.Parsed;
  lines: LineCounter;
  errors: SourceError[];
  data: unknown;
}

export type Path = ReadonlyArray<string | number>;

export function parseSource(file: string, text: string): SourceDoc {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const errors: SourceError[] = doc.errors.map((e) => {
    const pos = lines.linePos(e.pos[0]);
    const first = e.message.split('\n')[0] ?? e.message;
    return { file, line: pos.line, col: pos.col, message: `not valid YAML: ${first}` };
  });
  const data = errors.length === 0 ? doc.toJS({ maxAliasCount: 100 }) : undefined;
  return { file, doc, lines, errors, data };
}

/** The line and column of the value at path, or of its key when `key` is set; falls back to the nearest parent. */
export function locate(src: SourceDoc, path: Path, key = false): { line: number; col: number } {
  for (let depth = path.length; depth >= 0; depth--) {
    const sub = path.slice(0, depth);
    const wantKey = key && depth === path.length;
    if (wantKey && sub.length > 0) {
      const parent = sub.length === 1 ? src.doc.contents : src.doc.getIn(sub.slice(0, -1), true);
      if (isMap(parent)) {
        const last = sub[sub.length - 1];
        const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === last);
        if (pair && isNode(pair.key) && pair.key.range) return src.lines.linePos(pair.key.range[0]);
      }
    }
    const node = sub.length === 0 ? src.doc.contents : src.doc.getIn(sub, true);
    if (isNode(node) && node.range) return src.lines.linePos(node.range[0]);
  }
  return { line: 1, col: 1 };
}

export function errorAt(src: SourceDoc, path: Path, message: string, key = false): SourceError {
  const { line, col } = locate(src, path, key);
  return { file: src.file, line, col, message };
}

/** Renders a path like `nodes[2].depends_on[0]`. */
export function pathString(path: Path): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? p : `.${p}`;
  return out || '(top level)';
}

function describeValue(src: SourceDoc, path: Path): string {
  const node = path.length === 0 ? src.doc.contents : src.doc.getIn(path, true);
  if (node === undefined || node === null) return 'nothing';
  if (isMap(node)) return 'a map';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) return JSON.stringify(node.value);
  return 'something else';
}

const CHECK_KINDS = ['file', 'command', 'output', 'git'];

/** Turns zod issues into located, actionable messages. */
export function zodIssuesToErrors(
  src: SourceDoc,
  issues: z.core.$ZodIssue[],
  what: (p: Path) => string,
): SourceError[] {
  const out: SourceError[] = [];
  for (const issue of issues) {
    const path = issue.path as Path;
    const where = what(path);
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const k of issue.keys) {
          out.push(
            errorAt(
              src,
              [...path, k],
              `${where}: unknown field "${k}"${unknownFieldHint(src, path, k)}`,
              true,
            ),
          );
        }
        break;
      case 'invalid_union': {
        const isCheck = path.some((p) => p === 'validates');
        const msg = isCheck
          ? `${where}: a check must name exactly one of ${CHECK_KINDS.join(', ')} (got ${describeValue(src, path)}); e.g. "- file: out.txt"`
          : `${where}: ${issue.message}`;
        out.push(errorAt(src, path, msg));
        break;
      }
      case 'invalid_type':
        out.push(
          errorAt(
            src,
            path,
            describeValue(src, path) === 'nothing'
              ? `${where}: required field is missing (expected ${issue.expected})`
              : `${where}: expected ${issue.expected}, got ${describeValue(src, path)}`,
            describeValue(src, path) === 'nothing',
          ),
        );
        break;
      case 'invalid_format':
        out.push(
          errorAt(src, path, `${where}: ${describeValue(src, path)} is not allowed: ${formatHint(path)}`),
        );
        break;
      case 'invalid_value':
        out.push(
          errorAt(
            src,
            path,
            `${where}: ${describeValue(src, path)} is not allowed; use one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`,
          ),
        );
        break;
      default:
        out.push(errorAt(src, path, `${where}: ${issue.message}`));
    }
  }
  return out;
}

function unknownFieldHint(src: SourceDoc, path: Path, key: string): string {
  const known: Record<string, string[]> = {
    node: [
      'id',
      'description',
      'run',
      'prompt',
      'agent',
      'skill',
      'env',
      'timeout_minutes',
      'depends_on',
      'execute_conditions',
      'validates',
      'replay',
      'retry',
      'outputs',
    ],
    top: ['interlock', 'name', 'description', 'defaults', 'nodes', '$schema'],
  };
  const list = path.length === 0 ? known.top! : path[0] === 'nodes' && path.length === 2 ? known.node! : [];
  void src;
  const close = didYouMean(key.replace(/-/g, '_'), list);
  return close ? ` (did you mean "${close}"?)` : list.length ? `; allowed: ${list.join(', ')}` : '';
}

function formatHint(path: Path): string {
  const last = path[path.length - 1];
  if (last === 'name')
    return 'a graph name uses lowercase letters, digits, ".", "_" and "-", and starts with a letter or digit';
  if (last === 'skill') return 'a skill name uses letters, digits, "_" and "-"';
  return 'ids use letters, digits, "_" and "-", start with a letter or "_", at most 64 characters';
}
