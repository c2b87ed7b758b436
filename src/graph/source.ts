import { createRequire } from 'node:module';
import { CORE_SCHEMA, load as loadYamlFast } from 'js-yaml';
import type * as Yaml from 'yaml';
import type { Document, LineCounter } from 'yaml';

import type { z } from 'zod';
import { didYouMean, jsonParseError, type SourceError } from './errors.js';
import { CheckSchema, GraphSchema, NodeSchema, SkillSchema } from './schema.js';

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
const isMap = (n: unknown): n is Yaml.YAMLMap => yaml().isMap(n);
const isSeq = (n: unknown): n is Yaml.YAMLSeq => yaml().isSeq(n);
const isScalar = (n: unknown): n is Yaml.Scalar => yaml().isScalar(n);
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
    return { file, line: pos.line, col: pos.col, message: `not valid YAML: ${first}` };
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

/** Each check variant's kind is its first field, in the union's order. */
const CHECK_KINDS: string[] = CheckSchema.options.map((o) => Object.keys(o.shape)[0]!);

/** Turns zod issues into located, actionable messages. */
export function zodIssuesToErrors(
  src: SourceDoc,
  issues: z.core.$ZodIssue[],
  what: (p: Path) => string,
  root: 'graph' | 'skill' = 'graph',
  prefix: Path = [],
): SourceError[] {
  const out: SourceError[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path] as Path;
    const where = what(path);
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const k of issue.keys) {
          out.push(
            errorAt(
              src,
              [...path, k],
              `${where}: unknown field ${JSON.stringify(k)}${unknownFieldHint(src, root, path, k)}`,
              true,
            ),
          );
        }
        break;
      case 'invalid_union': {
        const isCheck = path.some((p) => p === 'validates');
        if (!isCheck) {
          out.push(errorAt(src, path, `${where}: ${issue.message}`));
          break;
        }
        const node = src.doc.getIn(path, true);
        const kinds = isMap(node)
          ? CHECK_KINDS.filter((k) => node.items.some((p) => isScalar(p.key) && p.key.value === k))
          : [];
        const variant = kinds.length === 1 ? issue.errors[CHECK_KINDS.indexOf(kinds[0]!)] : undefined;
        if (variant) {
          // The check names one kind: report that kind's own problem (e.g. a misspelt field).
          out.push(...zodIssuesToErrors(src, variant, what, root, path));
          break;
        }
        const got = isMap(node)
          ? kinds.length
            ? kinds.join(' and ')
            : 'none of them'
          : describeValue(src, path);
        out.push(
          errorAt(
            src,
            path,
            `${where}: a check must name exactly one of ${CHECK_KINDS.join(', ')} (got ${got}); e.g. "- file: out.txt"`,
          ),
        );
        break;
      }
      case 'invalid_key': {
        const name = String(path[path.length - 1]);
        out.push(
          errorAt(
            src,
            path,
            `${what(path.slice(0, -1))}: ${JSON.stringify(name)} is not a valid variable name: use letters, digits and "_", not starting with a digit`,
            true,
          ),
        );
        break;
      }
      case 'too_big':
      case 'too_small': {
        const value = describeValue(src, path);
        const bound = issue.code === 'too_big' ? issue.maximum : issue.minimum;
        if (issue.origin === 'array' && issue.code === 'too_big') {
          const extra =
            path[path.length - 1] === 'retry' ? ' (retry[0] for attempt 2, retry[1] for attempt 3)' : '';
          out.push(
            errorAt(
              src,
              [...path, Number(bound)],
              `${where}: at most ${bound} entries are allowed${extra}; remove the rest`,
            ),
          );
        } else if (issue.origin === 'array') {
          out.push(errorAt(src, path, `${where}: list at least ${bound} entry; the list is empty`));
        } else if (issue.origin === 'string') {
          out.push(errorAt(src, path, `${where}: must not be empty`));
        } else {
          const cmp =
            issue.code === 'too_big'
              ? issue.inclusive === false
                ? 'less than'
                : 'at most'
              : issue.inclusive === false
                ? 'more than'
                : 'at least';
          out.push(errorAt(src, path, `${where}: ${value} is out of range: it must be ${cmp} ${bound}`));
        }
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
      case 'invalid_value': {
        const allowed = issue.values.map((v) => JSON.stringify(v));
        const value = describeValue(src, path);
        out.push(
          value === 'nothing'
            ? errorAt(
                src,
                path,
                allowed.length === 1
                  ? `${where}: required field is missing; add "${String(path[path.length - 1])}: ${String(issue.values[0])}"`
                  : `${where}: required field is missing (one of ${allowed.join(', ')})`,
                true,
              )
            : errorAt(
                src,
                path,
                `${where}: ${value} is not allowed; use ${allowed.length === 1 ? allowed[0] : `one of ${allowed.join(', ')}`}`,
              ),
        );
        break;
      }
      default:
        out.push(errorAt(src, path, `${where}: ${issue.message}`));
    }
  }
  return out;
}

const fieldsOf = (schema: { shape: object }) => Object.keys(schema.shape);
const GRAPH_FIELDS = fieldsOf(GraphSchema);
const DEFAULTS_FIELDS = fieldsOf(GraphSchema.shape.defaults.unwrap());
const NODE_FIELDS = fieldsOf(NodeSchema);
const SKILL_FIELDS = fieldsOf(SkillSchema);
const RETRY_FIELDS = fieldsOf(NodeSchema.shape.retry.unwrap().element);
const CHECK_FIELDS = CheckSchema.options.map(fieldsOf);

/** The fields allowed at a path, from the zod schema itself so hints cannot drift. */
function allowedFields(src: SourceDoc, root: 'graph' | 'skill', path: Path): string[] {
  let rel = path;
  if (root === 'graph') {
    if (path.length === 0) return GRAPH_FIELDS;
    if (path.length === 1 && path[0] === 'defaults') return DEFAULTS_FIELDS;
    if (path[0] !== 'nodes' || typeof path[1] !== 'number') return [];
    if (path.length === 2) return NODE_FIELDS;
    rel = path.slice(2);
  } else if (path.length === 0) return SKILL_FIELDS;
  if (rel.length === 2 && rel[0] === 'retry') return RETRY_FIELDS;
  if (rel.length === 2 && rel[0] === 'validates') {
    const item = src.doc.getIn(path, true);
    const kind = CHECK_KINDS.findIndex(
      (k) => isMap(item) && item.items.some((p) => isScalar(p.key) && p.key.value === k),
    );
    return CHECK_FIELDS[kind] ?? [];
  }
  if (rel.length === 3 && rel[0] === 'validates') {
    // A kind with options of its own, e.g. `git: { branch, message }`.
    const variant = CheckSchema.options[CHECK_KINDS.indexOf(String(rel[2]))];
    const inner = (variant?.shape as Record<string, unknown> | undefined)?.[String(rel[2])];
    return inner && typeof inner === 'object' && 'shape' in inner ? fieldsOf(inner as { shape: object }) : [];
  }
  return [];
}

function unknownFieldHint(src: SourceDoc, root: 'graph' | 'skill', path: Path, key: string): string {
  const list = allowedFields(src, root, path);
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
