/**
 * The wording of schema errors: zod issues turned into located messages that say what to write instead, with
 * the allowed fields read from the zod schema itself so hints cannot drift.
 */
import type { z } from 'zod';
import { builtOnce } from '../built-once.js';
import { didYouMean, type SourceError } from '../errors.js';
import { errorAt, isMap, isScalar, isSeq, type Path, type SourceDoc } from '../load/source.js';
import { CheckSchema } from './check.js';
import { GraphSchema, NodeSchema, SkillSchema } from './schema.js';

function describeValue(src: SourceDoc, path: Path): string {
  const node = path.length === 0 ? src.doc.contents : src.doc.getIn(path, true);
  if (node === undefined || node === null) return 'nothing';
  if (isMap(node)) return 'a map';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) return JSON.stringify(node.value);
  return 'something else';
}

/** Each check variant's kind is its first field, in the union's order. */
const CHECK_KINDS = builtOnce((): string[] => CheckSchema.options.map((o) => Object.keys(o.shape)[0]!));

/** What the wording of one issue needs besides the issue: the source, the path it is at, how to name a place. */
interface IssueContext {
  src: SourceDoc;
  path: Path;
  where: string;
  what: (p: Path) => string;
  root: FieldRoot;
}

/** Which schema names the allowed fields: the graph's, a skill's, or the caller's own (e.g. the config file's). */
type FieldRoot = 'graph' | 'skill' | ((path: Path) => string[]);

type Issue = z.core.$ZodIssue;
type IssueOf<C extends Issue['code']> = Extract<Issue, { code: C }>;
type Wording = { [C in Issue['code']]?: (issue: IssueOf<C>, cx: IssueContext) => SourceError[] };

/** Turns zod issues into located, actionable messages. */
export function zodIssuesToErrors(
  src: SourceDoc,
  issues: Issue[],
  what: (p: Path) => string,
  root: FieldRoot = 'graph',
  prefix: Path = [],
): SourceError[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path] as Path;
    const cx: IssueContext = { src, path, where: what(path), what, root };
    const word = WORDING[issue.code] as ((i: Issue, c: IssueContext) => SourceError[]) | undefined;
    return word ? word(issue, cx) : [errorAt(src, path, `${cx.where}: ${issue.message}`)];
  });
}

const WORDING: Wording = {
  unrecognized_keys: (issue, { src, path, where, root }) =>
    issue.keys.map((k) =>
      errorAt(
        src,
        [...path, k],
        `${where}: unknown field ${JSON.stringify(k)}${unknownFieldHint(src, root, path, k)}`,
        true,
      ),
    ),
  invalid_union: invalidUnion,
  invalid_key: (_issue, { src, path, what }) => {
    const name = String(path[path.length - 1]);
    return [
      errorAt(
        src,
        path,
        `${what(path.slice(0, -1))}: ${JSON.stringify(name)} is not a valid variable name: use letters, digits and "_", not starting with a digit`,
        true,
      ),
    ];
  },
  too_big: outOfBounds,
  too_small: outOfBounds,
  invalid_type: (issue, { src, path, where }) => {
    const missing = describeValue(src, path) === 'nothing';
    return [
      errorAt(
        src,
        path,
        missing
          ? `${where}: required field is missing (expected ${issue.expected})`
          : `${where}: expected ${issue.expected}, got ${describeValue(src, path)}`,
        missing,
      ),
    ];
  },
  invalid_format: (_issue, { src, path, where }) => [
    errorAt(src, path, `${where}: ${describeValue(src, path)} is not allowed: ${formatHint(path)}`),
  ],
  invalid_value: (issue, { src, path, where }) => {
    const allowed = issue.values.map((v) => JSON.stringify(v));
    const value = describeValue(src, path);
    if (value !== 'nothing')
      return [
        errorAt(
          src,
          path,
          `${where}: ${value} is not allowed; use ${allowed.length === 1 ? allowed[0] : `one of ${allowed.join(', ')}`}`,
        ),
      ];
    const missing =
      allowed.length === 1
        ? `${where}: required field is missing; add "${String(path[path.length - 1])}: ${String(issue.values[0])}"`
        : `${where}: required field is missing (one of ${allowed.join(', ')})`;
    return [errorAt(src, path, missing, true)];
  },
};

/** A union that failed: for a check, the problem of the one kind it names, or which kinds there are. */
function invalidUnion(issue: IssueOf<'invalid_union'>, cx: IssueContext): SourceError[] {
  const { src, path, where, what, root } = cx;
  if (!path.some((p) => p === 'validates')) return [errorAt(src, path, `${where}: ${issue.message}`)];
  const node = src.doc.getIn(path, true);
  const kinds = isMap(node)
    ? CHECK_KINDS().filter((k) => node.items.some((p) => isScalar(p.key) && p.key.value === k))
    : [];
  const variant = kinds.length === 1 ? issue.errors[CHECK_KINDS().indexOf(kinds[0]!)] : undefined;
  // The check names one kind: report that kind's own problem (e.g. a misspelt field).
  if (variant) return zodIssuesToErrors(src, variant, what, root, path);
  // A misspelt kind is the likeliest reason a map names none: say which it looks like, as for a field.
  const keys = isMap(node) ? node.items.flatMap((p) => (isScalar(p.key) ? [String(p.key.value)] : [])) : [];
  const close = kinds.length
    ? []
    : keys.flatMap((k) => {
        const m = didYouMean(k, CHECK_KINDS());
        return m ? [`${JSON.stringify(k)}: did you mean "${m}"?`] : [];
      });
  const got = isMap(node)
    ? kinds.length
      ? kinds.join(' and ')
      : close.length
        ? close.join('; ')
        : 'none of them'
    : describeValue(src, path);
  return [
    errorAt(
      src,
      path,
      `${where}: a check must name exactly one of ${CHECK_KINDS().join(', ')} (got ${got}); e.g. "- file: out.txt"`,
    ),
  ];
}

/** A list, text or number outside its bounds. */
function outOfBounds(issue: IssueOf<'too_big'> | IssueOf<'too_small'>, cx: IssueContext): SourceError[] {
  const { src, path, where } = cx;
  const bound = issue.code === 'too_big' ? issue.maximum : issue.minimum;
  if (issue.origin === 'array' && issue.code === 'too_big') {
    const extra =
      path[path.length - 1] === 'retry' ? ' (retry[0] for attempt 2, retry[1] for attempt 3)' : '';
    return [
      errorAt(
        src,
        [...path, Number(bound)],
        `${where}: at most ${bound} entries are allowed${extra}; remove the rest`,
      ),
    ];
  }
  if (issue.origin === 'array')
    return [errorAt(src, path, `${where}: list at least ${bound} entry; the list is empty`)];
  if (issue.origin === 'string') return [errorAt(src, path, `${where}: must not be empty`)];
  const cmp =
    issue.code === 'too_big'
      ? issue.inclusive === false
        ? 'less than'
        : 'at most'
      : issue.inclusive === false
        ? 'more than'
        : 'at least';
  const value = describeValue(src, path);
  return [errorAt(src, path, `${where}: ${value} is out of range: it must be ${cmp} ${bound}`)];
}

/** The fields each place allows, read from the schemas when an error first needs them (a graph that loads needs none). */
const fieldsOf = (schema: { shape: object }) => Object.keys(schema.shape);
const GRAPH_FIELDS = builtOnce(() => fieldsOf(GraphSchema));
const DEFAULTS_FIELDS = builtOnce(() => fieldsOf(GraphSchema.shape.defaults.unwrap()));
const NODE_FIELDS = builtOnce(() => fieldsOf(NodeSchema));
const SKILL_FIELDS = builtOnce(() => fieldsOf(SkillSchema()));
const RETRY_FIELDS = builtOnce(() => fieldsOf(NodeSchema.shape.retry.unwrap().element));
const CHECK_FIELDS = builtOnce(() => CheckSchema.options.map(fieldsOf));

/** The fields allowed at a path, from the zod schema itself so hints cannot drift. */
function allowedFields(src: SourceDoc, root: FieldRoot, path: Path): string[] {
  if (typeof root === 'function') return root(path);
  const fields = namedFields(src, root, path);
  return fields.length ? fields : fieldsAlong(root === 'graph' ? GraphSchema : SkillSchema(), path);
}

/** A zod schema's definition, as far as walking a path needs it. */
interface Def {
  type: string;
  innerType?: { _zod: { def: Def } };
  in?: { _zod: { def: Def } };
  element?: { _zod: { def: Def } };
  shape?: Record<string, { _zod: { def: Def } }>;
}

/**
 * The fields of the object at a path, found by walking the schema (through optional, default and list): the
 * places the named cases above do not list, such as `budget` and `approvals` on a graph or a node.
 */
function fieldsAlong(schema: { _zod: { def: unknown } }, path: Path): string[] {
  let def: Def | undefined = schema._zod.def as Def;
  const unwrap = () => {
    while (def && (def.innerType || (def.type === 'pipe' && def.in)))
      def = (def.innerType ?? def.in)?._zod.def;
  };
  for (const p of path) {
    unwrap();
    if (typeof p === 'number') def = def?.type === 'array' ? def.element?._zod.def : undefined;
    else def = def?.type === 'object' ? def.shape?.[p]?._zod.def : undefined;
  }
  unwrap();
  return def?.type === 'object' && def.shape ? Object.keys(def.shape) : [];
}

/** The fields allowed at the places whose schema is not a plain walk: nodes, retries, the kinds of checks. */
function namedFields(src: SourceDoc, root: 'graph' | 'skill', path: Path): string[] {
  let rel = path;
  if (root === 'graph') {
    if (path.length === 0) return GRAPH_FIELDS();
    if (path.length === 1 && path[0] === 'defaults') return DEFAULTS_FIELDS();
    if (path[0] !== 'nodes' || typeof path[1] !== 'number') return [];
    if (path.length === 2) return NODE_FIELDS();
    rel = path.slice(2);
  } else if (path.length === 0) return SKILL_FIELDS();
  if (rel.length === 2 && rel[0] === 'retry') return RETRY_FIELDS();
  if (rel.length === 2 && rel[0] === 'validates') {
    const item = src.doc.getIn(path, true);
    const kind = CHECK_KINDS().findIndex(
      (k) => isMap(item) && item.items.some((p) => isScalar(p.key) && p.key.value === k),
    );
    return CHECK_FIELDS()[kind] ?? [];
  }
  if (rel.length === 3 && rel[0] === 'validates') {
    // A kind with options of its own, e.g. `git: { branch, message }`.
    const variant = CheckSchema.options[CHECK_KINDS().indexOf(String(rel[2]))];
    const inner = (variant?.shape as Record<string, unknown> | undefined)?.[String(rel[2])];
    return inner && typeof inner === 'object' && 'shape' in inner ? fieldsOf(inner as { shape: object }) : [];
  }
  return [];
}

function unknownFieldHint(src: SourceDoc, root: FieldRoot, path: Path, key: string): string {
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
