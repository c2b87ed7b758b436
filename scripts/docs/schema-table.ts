// Turns a JSON Schema (as z.toJSONSchema writes it) into Markdown tables of fields, so the reference pages are
// written from the same schema that validates the files and cannot drift from it.

/** A JSON Schema node as z.toJSONSchema writes it (draft 2020-12, everything inlined). */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  default?: unknown;
  const?: unknown;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  $ref?: string;
}

export interface Row {
  field: string;
  type: string;
  required: boolean;
  default: string;
  allowed: string;
  description: string;
}

/** Where a schema that has a section of its own is described: a Markdown link target and a short name. */
export interface Link {
  name: string;
  anchor: string;
}

export interface TableOptions {
  /** A schema object (by identity) or title that has a section of its own: it is linked, not expanded. */
  linkOf: (schema: JsonSchema) => Link | undefined;
  /** Where to add a missing description, for the error message. */
  source: string;
  /** Fields not to list (e.g. the fields every event shares). */
  skip?: ReadonlySet<string>;
  /** Collects the fields that have no description; without it, the first one throws. */
  missing?: string[];
}

/** The `(default X)` phrase a description may carry, for schemas whose default is applied by the loader. */
const DEFAULT_PHRASE = /\s*\(default ([^)]*)\)/;

const SAFE_MAX = Number.MAX_SAFE_INTEGER;

export const code = (v: string): string => `\`${v}\``;

/** Text safe in a Markdown table cell. */
export function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

function isObject(s: JsonSchema): boolean {
  return s.type === 'object' || s.properties !== undefined;
}

/** The type of a schema in words: `string`, `list of string`, `map of string`, a link to a section. */
export function typeOf(s: JsonSchema, opts: TableOptions): string {
  const link = opts.linkOf(s);
  if (link) return `[${link.name}](#${link.anchor})`;
  if (s.$ref) throw new Error(`${opts.source}: $ref ${s.$ref} is not supported by the docs generator`);
  const union = s.anyOf ?? s.oneOf;
  if (union) return union.map((u) => typeOf(u, opts)).join(' or ');
  if (s.type === 'array') return `list of ${s.items ? typeOf(s.items, opts) : 'any'}`;
  if (isObject(s)) {
    if (!s.properties && typeof s.additionalProperties === 'object') {
      return `map of ${typeOf(s.additionalProperties, opts)}`;
    }
    return 'object';
  }
  if (Array.isArray(s.type)) return words(s.type);
  if (s.type) return s.type;
  if (s.const !== undefined) return typeof s.const;
  return 'any';
}

function words(list: string[]): string {
  return list.length < 2 ? (list[0] ?? '') : `${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}`;
}

/** What values a schema allows beyond its type: enums, patterns, bounds, sizes. */
export function allowedOf(s: JsonSchema, opts: TableOptions): string {
  if (opts.linkOf(s)) return '';
  const out: string[] = [];
  if (s.const !== undefined) out.push(code(JSON.stringify(s.const)));
  if (s.enum) out.push(s.enum.map((v) => code(String(v))).join(', '));
  if (s.pattern) out.push(`matches ${code(s.pattern)}`);
  if (s.minLength === 1) out.push('not empty');
  else if (s.minLength !== undefined) out.push(`at least ${s.minLength} characters`);
  if (s.maxLength !== undefined) out.push(`at most ${s.maxLength} characters`);
  if (s.exclusiveMinimum !== undefined) out.push(`> ${s.exclusiveMinimum}`);
  if (s.minimum !== undefined && s.minimum > -SAFE_MAX) out.push(`≥ ${s.minimum}`);
  if (s.exclusiveMaximum !== undefined) out.push(`< ${s.exclusiveMaximum}`);
  if (s.maximum !== undefined && s.maximum < SAFE_MAX) out.push(`≤ ${s.maximum}`);
  if (s.minItems !== undefined) out.push(`at least ${s.minItems} item${s.minItems === 1 ? '' : 's'}`);
  if (s.maxItems !== undefined) out.push(`at most ${s.maxItems} item${s.maxItems === 1 ? '' : 's'}`);
  if (s.type === 'array' && s.items) {
    const each = allowedOf(s.items, opts);
    if (each) out.push(`each: ${each}`);
  }
  if (s.propertyNames?.pattern) out.push(`names match ${code(s.propertyNames.pattern)}`);
  if (typeof s.additionalProperties === 'object' && !s.properties) {
    const each = allowedOf(s.additionalProperties, opts);
    if (each) out.push(`values: ${each}`);
  }
  const union = s.anyOf ?? s.oneOf;
  if (union) {
    const parts = union
      .map((u) => [typeOf(u, opts), allowedOf(u, opts)] as const)
      .filter(([, a]) => a !== '')
      .map(([t, a]) => `${t}: ${a}`);
    out.push(...parts);
  }
  return out.join('; ');
}

function defaultOf(s: JsonSchema, described: string | undefined, opts: TableOptions): string {
  if (s.default !== undefined) {
    if (s.default !== null && typeof s.default === 'object' && !Array.isArray(s.default) && opts.linkOf(s))
      return 'as below';
    return code(typeof s.default === 'string' ? s.default : JSON.stringify(s.default));
  }
  return described ?? '';
}

/**
 * The rows for an object schema's fields, in the schema's order. A nested object without a description of its
 * own is flattened into `parent.child` rows; with one, it gets a row and its fields follow it.
 * A field without a description is an error (collected in `opts.missing`, or thrown): the reference must say
 * what every field means.
 */
export function fieldRows(obj: JsonSchema, opts: TableOptions, prefix = ''): Row[] {
  const rows: Row[] = [];
  const required = new Set(obj.required ?? []);
  for (const [key, s] of Object.entries(obj.properties ?? {})) {
    if (prefix === '' && opts.skip?.has(key)) continue;
    const field = `${prefix}${key}`;
    const linked = opts.linkOf(s) !== undefined;
    const nested = !linked && isObject(s) && s.properties !== undefined ? s : undefined;
    const nestedItems =
      !linked && s.type === 'array' && s.items && !opts.linkOf(s.items) && s.items.properties
        ? s.items
        : undefined;
    if (nested && s.description === undefined) {
      rows.push(...fieldRows(nested, opts, `${field}.`));
      continue;
    }
    if (s.description === undefined) {
      const what = `${opts.source}: field "${field}" has no description: add .meta({ description: '…' }) to it`;
      if (!opts.missing) throw new Error(what);
      opts.missing.push(what);
    }
    const text = s.description ?? '';
    const m = DEFAULT_PHRASE.exec(text);
    const description = m ? text.replace(DEFAULT_PHRASE, '') : text;
    rows.push({
      field,
      type: typeOf(s, opts),
      required: required.has(key),
      default: defaultOf(s, m?.[1], opts),
      allowed: allowedOf(s, opts),
      description,
    });
    if (nested) rows.push(...fieldRows(nested, opts, `${field}.`));
    if (nestedItems) rows.push(...fieldRows(nestedItems, opts, `${field}[].`));
  }
  return rows;
}

/** The rows as a Markdown table; columns that are empty in every row are left out. */
export function table(rows: Row[]): string {
  const columns: Array<[string, (r: Row) => string]> = [
    ['field', (r) => code(r.field)],
    ['type', (r) => r.type],
    ['required', (r) => (r.required ? 'yes' : 'no')],
    ['default', (r) => r.default],
    ['allowed values', (r) => r.allowed],
    ['description', (r) => r.description],
  ];
  const used = columns.filter(([, get]) => rows.some((r) => get(r) !== ''));
  const head = `| ${used.map(([h]) => h).join(' | ')} |`;
  const rule = `| ${used.map(() => '---').join(' | ')} |`;
  const body = rows.map((r) => `| ${used.map(([, get]) => cell(get(r))).join(' | ')} |`);
  return [head, rule, ...body].join('\n');
}

/** The schema at a path of property names and indexes into a JSON Schema. */
export function at(root: JsonSchema, path: ReadonlyArray<string | number>): JsonSchema {
  let s: unknown = root;
  for (const p of path) {
    s = (s as Record<string | number, unknown> | undefined)?.[p];
    if (s === undefined) throw new Error(`the JSON Schema has nothing at ${path.join('.')}`);
  }
  return s as JsonSchema;
}

/** A GitHub-style heading anchor for a heading's text. */
export function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');
}
