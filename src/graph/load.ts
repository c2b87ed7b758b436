import { createHash } from 'node:crypto';
import {
  checkTemplate,
  ExpressionSyntaxError,
  findTemplateSpans,
  parseExpression,
  stripDelimiters,
} from '../expressions/evaluate.js';
import { GraphError, type SourceError, suggestion } from './errors.js';
import {
  type Approach,
  type ApproachLabel,
  DEFAULT_TIMEOUT_MINUTES,
  type Graph,
  type GraphNode,
} from './model.js';
import { type GraphFile, GraphSchema, type NodeFile, type SkillFile, SkillSchema } from './schema.js';
import { errorAt, type Path, parseSource, type SourceDoc, zodIssuesToErrors } from './source.js';

export interface SourceText {
  path: string;
  text: string;
}

/** Reads `skills/<name>.yml` beside the graph; undefined when it does not exist. */
export type SkillReader = (name: string) => SourceText | undefined;

/** Sorted-key JSON: the same data always gives the same bytes. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedKeys(value));
}

/**
 * A copy with every object's keys in sorted order, for JSON.stringify to write as it is (a replacer function,
 * called back for every value, cost a fifth of loading a large graph).
 */
function sortedKeys(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(sortedKeys);
  const o = v as Record<string, unknown>;
  if (typeof o.toJSON === 'function') return o;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(o).sort()) {
    const value = sortedKeys(o[key]);
    // A key named "__proto__" is a key like any other (assigned, it would set the prototype and vanish).
    if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true });
    else out[key] = value;
  }
  return out;
}

export function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

function nodeWhere(data: GraphFile | undefined, path: Path): string {
  if (path[0] === 'nodes' && typeof path[1] === 'number') {
    const id = data?.nodes?.[path[1]]?.id;
    const rest = path.slice(2);
    // JSON quoting: an id that is not valid (a newline in it, say) must not break the one-error-a-line format.
    const label = typeof id === 'string' ? `node ${JSON.stringify(id)}` : `nodes[${path[1]}]`;
    return rest.length ? `${label} ${restString(rest)}` : label;
  }
  return path.length ? restString(path) : 'graph';
}

function restString(path: Path): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? p : `.${p}`;
  return out;
}

/** Names GitHub's expression evaluator cannot hold as keys (it lowercases names into a plain object). */
const RESERVED_NAMES = new Set(['__proto__', 'constructor']);

/**
 * Untrusted-text rules and expression syntax for the texts one approach writes itself (a node, a retry
 * entry, a skill): each text is checked once, in the file and at the line where it is written.
 */
function checkTexts(
  src: SourceDoc,
  fields: ApproachFields,
  base: Path,
  where: (rest: Path) => string,
  errors: SourceError[],
): void {
  if (fields.agent?.includes('${{')) {
    errors.push(
      errorAt(
        src,
        [...base, 'agent'],
        `${where(['agent'])} contains "\${{": expressions are never pasted into a shell script; the agent command reads the prompt on stdin, so put the expression in the prompt (or in env, used as "$NAME")`,
      ),
    );
  }
  if (fields.run?.includes('${{')) {
    errors.push(
      errorAt(
        src,
        [...base, 'run'],
        `${where(['run'])} contains "\${{": expressions are never pasted into a shell script; move the expression into env (e.g. env: { TITLE: "\${{ github.event.issue.title }}" }) and use "$TITLE" in run`,
      ),
    );
  }
  const check = (text: string, ...rest: Path) => {
    try {
      checkTemplate(text);
    } catch (e) {
      errors.push(errorAt(src, [...base, ...rest], `${where(rest)}: ${(e as Error).message}`));
    }
  };
  if (fields.prompt !== undefined) check(fields.prompt, 'prompt');
  if (fields.env)
    for (const name of Object.keys(fields.env)) {
      const value = fields.env[name];
      if (typeof value === 'string') check(value, 'env', name);
    }
}

/** Each condition must be one expression that parses. */
function checkConditions(
  src: SourceDoc,
  conditions: string[] | undefined,
  base: Path,
  label: string,
  errors: SourceError[],
): void {
  (conditions ?? []).forEach((c, j) => {
    try {
      if (findTemplateSpans(c).length > 1)
        throw new ExpressionSyntaxError(
          'a condition is one expression: write it as one "${{ }}" (combine parts with && or ||)',
          c,
        );
      parseExpression(stripDelimiters(c));
    } catch (e) {
      errors.push(
        errorAt(
          src,
          [...base, 'execute_conditions', j],
          `${label} execute_conditions[${j}]: ${(e as Error).message}`,
        ),
      );
    }
  });
}

function parseSkill(
  name: string,
  source: SourceText,
): { skill?: SkillFile; src: SourceDoc; errors: SourceError[] } {
  const src = parseSource(source.path, source.text);
  if (src.errors.length) return { src, errors: src.errors };
  const result = SkillSchema.safeParse(src.data);
  if (!result.success) {
    return {
      src,
      errors: zodIssuesToErrors(
        src,
        result.error.issues,
        (p) => `skill "${name}"${p.length ? ` ${restString(p)}` : ''}`,
        'skill',
      ),
    };
  }
  const errors: SourceError[] = [];
  const skill = result.data;
  const where = (p: Path) => `skill "${name}" ${restString(p)}`;
  checkTexts(src, skill, [], where, errors);
  checkConditions(src, skill.execute_conditions, [], `skill "${name}"`, errors);
  (skill.retry ?? []).forEach((r, k) => {
    checkTexts(src, r, ['retry', k], (p) => where(['retry', k, ...p]), errors);
  });
  return { skill, src, errors };
}

function stringEnv(env: Record<string, string | number | boolean>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) out[k] = String(v);
  return out;
}

type ApproachFields = Pick<
  NodeFile,
  'description' | 'run' | 'prompt' | 'agent' | 'skill' | 'env' | 'timeout_minutes'
>;

/** Applies override fields on a base approach; setting `run` clears `prompt` and vice versa. */
function overlay(base: Omit<Approach, 'label'>, over: ApproachFields | undefined): Omit<Approach, 'label'> {
  if (!over) return base;
  // An approach's env is never changed once built, so one without env of its own shares its base's.
  const next = { ...base, env: over.env ? { ...base.env, ...stringEnv(over.env) } : base.env };
  if (over.description !== undefined) next.description = over.description;
  if (over.run !== undefined) {
    next.run = over.run;
    // Cleared, not deleted: a delete turns the object into a slow dictionary (stripped before it is kept).
    next.prompt = undefined;
  }
  if (over.prompt !== undefined) {
    next.prompt = over.prompt;
    next.run = undefined;
  }
  if (over.agent !== undefined) next.agent = over.agent;
  if (over.timeout_minutes !== undefined) next.timeout_minutes = over.timeout_minutes;
  return next;
}

/** Parses and validates a graph text; throws GraphError listing every problem found. */
export function parseGraph(source: SourceText, readSkill: SkillReader = () => undefined): Graph {
  const src = parseSource(source.path, source.text);
  if (src.errors.length) throw new GraphError(src.errors);
  if (src.data === null || typeof src.data !== 'object' || Array.isArray(src.data)) {
    throw new GraphError([
      errorAt(
        src,
        [],
        'a graph file must be a map with "interlock: 1", "name" and "nodes"; see README "Graph files"',
      ),
    ]);
  }
  const parsed = GraphSchema.safeParse(src.data);
  if (!parsed.success) {
    throw new GraphError(
      zodIssuesToErrors(src, parsed.error.issues, (p) => nodeWhere(src.data as GraphFile, p)),
    );
  }
  const file = parsed.data;
  const errors: SourceError[] = [];
  const err = (path: Path, message: string, key = false) => errors.push(errorAt(src, path, message, key));

  // Identity and edges.
  const firstIndex = new Map<string, number>();
  file.nodes.forEach((n, i) => {
    const seen = firstIndex.get(n.id);
    if (seen !== undefined) {
      const line = errorAt(src, ['nodes', seen, 'id'], '').line;
      err(
        ['nodes', i, 'id'],
        `node id "${n.id}" is used twice (first at line ${line}); give each node its own id`,
      );
    } else firstIndex.set(n.id, i);
  });
  const ids = [...firstIndex.keys()];
  file.nodes.forEach((n, i) => {
    // GitHub's expression evaluator keeps names in a plain object: these two collide with its built-ins, and
    // nodes.<id> would silently read as empty.
    const reserved = (name: string, path: Path) =>
      err(path, `node "${n.id}": "${name}" is reserved (expressions cannot read it); choose another name`);
    if (RESERVED_NAMES.has(n.id.toLowerCase())) reserved(n.id, ['nodes', i, 'id']);
    n.outputs?.forEach((o, k) => {
      if (RESERVED_NAMES.has(o.toLowerCase())) reserved(o, ['nodes', i, 'outputs', k]);
    });
    const deps = n.depends_on ?? [];
    const seenDeps = deps.length > 1 ? new Set<string>() : undefined;
    deps.forEach((dep, j) => {
      const at = (): Path => ['nodes', i, 'depends_on', j];
      if (dep === n.id) err(at(), `node "${n.id}" depends on itself; remove "${dep}" from its depends_on`);
      else if (!firstIndex.has(dep))
        err(at(), `node "${n.id}" depends on "${dep}", which is not a node${suggestion(dep, ids)}`);
      else if (seenDeps?.has(dep))
        err(at(), `node "${n.id}" lists "${dep}" twice in depends_on; list it once`);
      seenDeps?.add(dep);
    });
  });
  if (errors.length === 0) {
    const cycle = findCycle(file.nodes);
    if (cycle) {
      const i = firstIndex.get(cycle[0]!)!;
      err(
        ['nodes', i, 'depends_on'],
        `depends_on cycle: ${[...cycle, cycle[0]].join(' -> ')}; remove one of these depends_on entries`,
      );
    }
  }

  // Skills.
  const skills = new Map<string, SkillFile | null>();
  const skillFor = (name: string, at: Path): SkillFile | undefined => {
    if (!skills.has(name)) {
      const text = readSkill(name);
      if (!text) {
        err(at, `skill "${name}" not found: create skills/${name}.yml beside the graph, or fix the name`);
        skills.set(name, null);
      } else {
        const r = parseSkill(name, text);
        errors.push(...r.errors);
        skills.set(name, r.skill ?? null);
      }
    }
    return skills.get(name) ?? undefined;
  };

  // Approaches, expressions and untrusted-text rules.
  const defaults = file.defaults ?? {};
  if (defaults.agent?.includes('${{'))
    err(
      ['defaults', 'agent'],
      `defaults.agent contains "\${{": expressions are never pasted into a shell script; the agent command reads the prompt on stdin, so put the expression in the prompt (or in env, used as "$NAME")`,
    );
  const nodes: GraphNode[] = file.nodes.map((n, i) => {
    const at = (...rest: Path): Path => ['nodes', i, ...rest];
    const skill = n.skill ? skillFor(n.skill, at('skill')) : undefined;
    const merged: NodeFile = { ...(skill ?? {}), ...stripUndefined(n) } as NodeFile;
    const baseApproach = overlay(
      overlay(
        {
          env: {},
          timeout_minutes: defaults.timeout_minutes ?? DEFAULT_TIMEOUT_MINUTES,
          agent: defaults.agent,
        },
        skill,
      ),
      n,
    );
    if (n.skill) baseApproach.skill = n.skill;
    const approaches: Approach[] = [{ label: 'default', ...baseApproach }];
    const retries = merged.retry ?? [];
    retries.forEach((r, k) => {
      const rSkill = r.skill ? skillFor(r.skill, at('retry', k, 'skill')) : undefined;
      const viaSkill = overlay(baseApproach, rSkill);
      const next = overlay(viaSkill, r);
      if (r.skill) next.skill = r.skill;
      else if (rSkill === undefined && (r.run !== undefined || r.prompt !== undefined))
        next.skill = undefined;
      approaches.push({ label: `retry[${k}]` as ApproachLabel, ...next });
    });
    if (retries.length < 1) approaches.push({ ...approaches[0]! });
    const third = approaches[2];
    if (third && sameWork(third, approaches[0]!)) {
      err(
        at('retry', 1),
        `node "${n.id}" retry[1] is the same approach as the node's own; attempt 3 must differ: give it another run, prompt or skill`,
      );
    }
    const own = approaches[0]!;
    approaches.forEach((a, k) => {
      // Attempt 2 without retry[0] is attempt 1 again, and a retry inherits the node's fields:
      // each text is checked once, where it is written.
      if (k > 0 && a.label === 'default') return;
      const where = k === 0 ? at() : at('retry', k - 1);
      const label = k === 0 ? `node "${n.id}"` : `node "${n.id}" ${a.label}`;
      if (a.run === undefined && a.prompt === undefined) {
        const skillFailed = n.skill !== undefined && skills.get(n.skill) === null;
        if (k === 0 && !skillFailed)
          err(where, `${label} has neither "run" nor "prompt": give it one (or a skill that has one)`);
      }
      if (n.run !== undefined && n.prompt !== undefined && k === 0) {
        err(at('prompt'), `${label} has both "run" and "prompt": keep exactly one`, true);
      }
      if (a.prompt !== undefined && !a.agent && (k === 0 || a.prompt !== own.prompt)) {
        err(
          k === 0 ? at('prompt') : where,
          `${label} has a prompt but no agent command: set defaults.agent (e.g. "claude -p") or the node's agent`,
        );
      }
    });
    const nodeWhereAt = (p: Path) => nodeWhere(file, p);
    checkTexts(src, n, at(), (p) => nodeWhereAt(at(...p)), errors);
    (n.retry ?? []).forEach((r, k) => {
      checkTexts(src, r, at('retry', k), (p) => nodeWhereAt(at('retry', k, ...p)), errors);
    });
    checkConditions(src, n.execute_conditions, at(), `node "${n.id}"`, errors);
    (merged.validates ?? []).forEach((check, j) => {
      const pattern = (p: string | undefined, ...field: Path) => {
        if (p === undefined) return;
        try {
          new RegExp(p);
        } catch (e) {
          err(
            at('validates', j, ...field),
            `node "${n.id}" validates[${j}]: ${(e as Error).message}; fix the regular expression`,
          );
        }
      };
      if ('contains' in check) pattern(check.contains, 'contains');
      if ('matches' in check) pattern(check.matches, 'matches');
      if ('git' in check) pattern(check.git.message, 'git', 'message');
      if ('command' in check && check.command.includes('${{')) {
        err(
          at('validates', j, 'command'),
          `node "${n.id}" validates[${j}] command contains "\${{": expressions are never pasted into a shell script; give the node an env variable (e.g. env: { BRANCH: "\${{ nodes.push.outputs.branch }}" }) and use "$BRANCH" in the command`,
        );
      }
      if ('output' in check && !(merged.outputs ?? []).includes(check.output)) {
        err(
          at('validates', j),
          `node "${n.id}" checks output "${check.output}" but does not list it in outputs; add it to outputs`,
        );
      }
    });
    // Keys in sorted order, here and in each approach (see graphHash).
    return {
      approaches: approaches.map(sortedApproach),
      depends_on: n.depends_on ?? [],
      ...(merged.description !== undefined ? { description: merged.description } : {}),
      execute_conditions: merged.execute_conditions ?? [],
      id: n.id,
      outputs: merged.outputs ?? [],
      replay: merged.replay ?? defaults.replay ?? 'never',
      validates: merged.validates ?? [],
    };
  });

  if (errors.length) throw new GraphError(dedupe(errors));
  return {
    name: file.name,
    ...(file.description !== undefined ? { description: file.description } : {}),
    hash: graphHash(file.name, file.description, nodes),
    path: source.path,
    nodes,
  };
}

/**
 * The graph's address: sha256 of `canonicalJson({ name, description, nodes })`, fed to the hash a node at a
 * time. The same bytes as the whole text, without a sorted copy of every node and a text of megabytes alive at
 * once (their garbage collection was most of the time it took to load a large graph). parseGraph builds nodes
 * and approaches with their keys in sorted order, so only the checks, written by hand, need sorting here.
 */
function graphHash(name: string, description: string | undefined, nodes: readonly GraphNode[]): string {
  const hash = createHash('sha256');
  // Keys in sorted order, as canonicalJson writes them; an undefined description is left out, as JSON.stringify
  // leaves it out.
  hash.update(
    `{${description !== undefined ? `"description":${JSON.stringify(description)},` : ''}"name":${JSON.stringify(name)},"nodes":[`,
  );
  nodes.forEach((node, i) => {
    const text = JSON.stringify(
      node.validates.length ? { ...node, validates: sortedKeys(node.validates) } : node,
    );
    hash.update(i === 0 ? text : `,${text}`);
  });
  hash.update(']}');
  return `sha256:${hash.digest('hex')}`;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) {
    const v = (o as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = v;
  }
  return out as Partial<T>;
}

/** Every field an approach can have, in sorted order. */
const APPROACH_KEYS = [
  'agent',
  'description',
  'env',
  'label',
  'prompt',
  'run',
  'skill',
  'timeout_minutes',
] as const satisfies ReadonlyArray<keyof Approach>;
/** Fails to compile when Approach gains a field APPROACH_KEYS does not list (it would be left out of the hash). */
type NoneMissing<Missing extends never> = Missing;
export type ApproachKeysListed = NoneMissing<Exclude<keyof Approach, (typeof APPROACH_KEYS)[number]>>;

/** The approach with its undefined fields left out and its keys (and its env's) in sorted order. */
function sortedApproach(a: Approach): Approach {
  const out: Record<string, unknown> = {};
  for (const key of APPROACH_KEYS) {
    const value = a[key];
    if (value !== undefined) out[key] = key === 'env' ? sortedKeys(value) : value;
  }
  return out as unknown as Approach;
}

function sameWork(a: Approach, b: Approach): boolean {
  return a.run === b.run && a.prompt === b.prompt && a.agent === b.agent && a.skill === b.skill;
}

function dedupe(errors: SourceError[]): SourceError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const k = `${e.file}:${e.line}:${e.col}:${e.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** The first dependency cycle found, as a list of node ids, or undefined. Iterative: deep graphs are fine. */
export function findCycle(nodes: ReadonlyArray<{ id: string; depends_on?: string[] }>): string[] | undefined {
  const index = new Map<string, number>();
  nodes.forEach((n, i) => {
    if (!index.has(n.id)) index.set(n.id, i);
  });
  // 0: not seen, 1: on the current path, 2: done. Nodes by their index; a repeated id is its first node.
  const state = new Uint8Array(nodes.length);
  const stack: number[] = [];
  const next: number[] = [];
  for (let start = 0; start < nodes.length; start++) {
    if (state[start] !== 0 || index.get(nodes[start]!.id) !== start) continue;
    stack.push(start);
    next.push(0);
    state[start] = 1;
    while (stack.length) {
      const top = stack.length - 1;
      const list = nodes[stack[top]!]!.depends_on ?? [];
      if (next[top]! >= list.length) {
        state[stack[top]!] = 2;
        stack.pop();
        next.pop();
        continue;
      }
      const dep = index.get(list[next[top]!++]!);
      if (dep === undefined) continue;
      if (state[dep] === 1) return stack.slice(stack.indexOf(dep)).map((i) => nodes[i]!.id);
      if (state[dep] === 0) {
        state[dep] = 1;
        stack.push(dep);
        next.push(0);
      }
    }
  }
  return undefined;
}
