/**
 * The YAML (and JSON) source of a graph, skill or config file: parsing with positions kept (a fast path, and
 * the careful parser loaded only when an error must be located), and locating a path's line and column.
 */
import { createRequire } from 'node:module';
import { CORE_SCHEMA, load as loadYamlFast } from 'js-yaml';
import type * as Yaml from 'yaml';
import type { Document, LineCounter } from 'yaml';

import { jsonParseError, type SourceError } from '../errors.js';

// The careful, position-keeping parser is needed only when there is an error to locate: it is loaded on first
// use, not when a step starts (evaluating its modules was a tenth of the Action's cold start).
let yamlModule: typeof Yaml | undefined;
const yaml = (): typeof Yaml => {
  // In dist/, `require('yaml')` loads dist/yaml.cjs, a file of its own (scripts/build.mjs); under tsx and
  // vitest the source runs as plain ESM, which has no `require`.
  try {
    yamlModule ??= (
      typeof require === 'function' ? require('yaml') : createRequire(import.meta.url)('yaml')
    ) as typeof Yaml;
  } catch (e) {
    throw new Error(
      `cannot load the YAML parser that locates errors (${(e as Error).message.split('\n')[0]}): a bundle in dist/ needs dist/yaml.cjs beside it; copy the whole of dist/`,
    );
  }
  return yamlModule;
};
export const isMap = (n: unknown): n is Yaml.YAMLMap => yaml().isMap(n);
export const isSeq = (n: unknown): n is Yaml.YAMLSeq => yaml().isSeq(n);
export const isScalar = (n: unknown): n is Yaml.Scalar => yaml().isScalar(n);
const isNode = (n: unknown): n is Yaml.Node => yaml().isNode(n);

/**
 * A YAML or JSON text with source positions, for errors that point at a line and column. Positions are only
 * needed when there is an error to report, so a text that parses cleanly gets them lazily (`doc`, `lines`).
 */
export interface SourceDoc {
  file: string;
  readonly doc: Document.Parsed;
  readonly lines: LineCounter;
  errors: SourceError[];
  data: unknown;
}

/** True when an object or array is reached twice: YAML aliases (or a cycle), which the careful parser limits. */
function sharesReferences(value: unknown): boolean {
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (seen.has(v)) return true;
    seen.add(v);
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (child !== null && typeof child === 'object') stack.push(child);
  }
  return false;
}

/**
 * The fast path: js-yaml with YAML 1.2's core schema (as the careful parser uses), duplicate keys refused. Any
 * problem, or any alias, sends the text to the careful parser, which reports it with its position.
 */
function parseFast(file: string, text: string): SourceDoc | undefined {
  let data: unknown;
  try {
    data = loadYamlFast(text, { schema: CORE_SCHEMA, filename: file });
  } catch {
    return undefined;
  }
  // Only an alias (`*name`) makes two places share one value: without a `*`, there is nothing to look for.
  if (text.includes('*') && sharesReferences(data)) return undefined;
  let positioned: { doc: Document.Parsed; lines: LineCounter } | undefined;
  const positions = () => {
    if (!positioned) {
      const lines = new (yaml().LineCounter)();
      positioned = {
        doc: yaml().parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true }),
        lines,
      };
    }
    return positioned;
  };
  return {
    file,
    errors: [],
    data,
    get doc() {
      return positions().doc;
    },
    get lines() {
      return positions().lines;
    },
  };
}

export type Path = ReadonlyArray<string | number>;

/**
 * The fix for a plain value holding `: ` (`run: git commit -m "fix: it"`), which YAML reads as a second key:
 * quote the whole value, shown for this line, or write it as a block.
 */
function unquotedColonHint(line: string): string {
  const m = /^(\s*(?:-\s+)?)([^\s:#][^:#]*?):\s+(.+?)\s*$/.exec(line);
  if (!m || !m[3]!.includes(': ')) return '';
  const quoted = `'${m[3]!.replace(/'/g, "''")}'`;
  return `: the value of "${m[2]}" holds ": ", which YAML reads as the start of another key; quote the whole value (${m[2]}: ${quoted}) or write it as a block (${m[2]}: |, then the value on the next line, indented)`;
}

export function parseSource(file: string, text: string): SourceDoc {
  const fast = parseFast(file, text);
  if (fast) return fast;
  return parseCarefully(file, text);
}

/** The careful path: every node keeps its position; aliases are limited; errors are located. */
export function parseCarefully(file: string, text: string): SourceDoc {
  const lines = new (yaml().LineCounter)();
  const doc = yaml().parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const errors: SourceError[] = doc.errors.map((e) => {
    const pos = lines.linePos(e.pos[0]);
    const first = e.message.split('\n')[0] ?? e.message;
    if (e.code === 'DUPLICATE_KEY') {
      const key = /^\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([^:\n]*?))\s*:/.exec(text.slice(e.pos[0]));
      const name = key?.[1] ?? key?.[2] ?? key?.[3];
      if (name)
        return {
          file,
          line: pos.line,
          col: pos.col,
          message: `"${name}" appears twice in the same map; keep one`,
        };
    }
    const hint = /Nested mappings are not allowed in compact mappings/.test(first)
      ? unquotedColonHint(text.split('\n')[pos.line - 1] ?? '')
      : '';
    return { file, line: pos.line, col: pos.col, message: `not valid YAML: ${first}${hint}` };
  });
  // Nesting too deep for the parser's stack is reported once per level it unwound: say it once.
  const deep = errors.findIndex((e) => /Maximum call stack/.test(e.message));
  if (deep >= 0)
    errors.splice(0, errors.length, {
      ...errors[deep]!,
      message: 'not valid YAML: nested too deeply (Maximum call stack size exceeded); flatten the structure',
    });
  if (errors.length && file.endsWith('.json')) {
    // YAML's messages about JSON text mislead ("block collections..."); JSON's own parser says what is wrong.
    try {
      JSON.parse(text);
    } catch (e) {
      const { offset, message } = jsonParseError(text, (e as Error).message);
      const pos = lines.linePos(offset);
      errors.splice(0, errors.length, {
        file,
        line: pos.line,
        col: pos.col,
        message: `not valid JSON: ${message}`,
      });
    }
  }
  let data: unknown;
  if (errors.length === 0) {
    try {
      data = doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      // An alias bomb: refuse it rather than expand it.
      errors.push({
        file,
        line: 1,
        col: 1,
        message: `not accepted: ${(e as Error).message} (YAML aliases expand too far); write the values out`,
      });
    }
  }
  return { file, doc, lines, errors, data };
}

/** The line and column of the value at path, or of its key when `key` is set; falls back to the nearest parent. */
function locate(src: SourceDoc, path: Path, key = false): { line: number; col: number } {
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
