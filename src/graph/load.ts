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
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
      return sorted;
    }
    return v;
  });
}

export function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

function nodeWhere(data: GraphFile | undefined, path: Path): string {
  if (path[0] === 'nodes' && typeof path[1] === 'number') {
    const id = data?.nodes?.[path[1]]?.id;
    const rest = path.slice(2);
    const label = typeof id === 'string' ? `node "${id}"` : `nodes[${path[1]}]`;
    return rest.length ? `${label} ${restString(rest)}` : label;
  }
  return path.length ? restString(path) : 'graph';
}

function restString(path: Path): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? p : `.${p}`;
  return out;
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
      ),
    };
  }
  return { skill: result.data, src, errors: [] };
}

function stringEnv(env: Record<string, string | number | boolean> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env ?? {})) out[k] = String(v);
  return out;
}

type ApproachFields = Pick<
  NodeFile,
  'description' | 'run' | 'prompt' | 'agent' | 'skill' | 'env' | 'timeout_minutes'
>;

/** Applies override fields on a base approach; setting `run` clears `prompt` and vice versa. */
function overlay(base: Omit<Approach, 'label'>, over: ApproachFields | undefined): Omit<Approach, 'label'> {
  if (!over) return base;
  const next = { ...base, env: { ...base.env, ...stringEnv(over.env) } };
  if (over.description !== undefined) next.description = over.description;
  if (over.run !== undefined) {
    next.run = over.run;
    delete next.prompt;
  }
  if (over.prompt !== undefined) {
    next.prompt = over.prompt;
    delete next.run;
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
    const seenDeps = new Set<string>();
    (n.depends_on ?? []).forEach((dep, j) => {
      const at: Path = ['nodes', i, 'depends_on', j];
      if (dep === n.id) err(at, `node "${n.id}" depends on itself; remove "${dep}" from its depends_on`);
      else if (!firstIndex.has(dep))
        err(at, `node "${n.id}" depends on "${dep}", which is not a node${suggestion(dep, ids)}`);
      else if (seenDeps.has(dep)) err(at, `node "${n.id}" lists "${dep}" twice in depends_on; list it once`);
      seenDeps.add(dep);
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
      else if (rSkill === undefined && (r.run !== undefined || r.prompt !== undefined)) delete next.skill;
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
    approaches.forEach((a, k) => {
      const where = k === 0 ? at() : at('retry', k - 1);
      const label = k === 0 ? `node "${n.id}"` : `node "${n.id}" ${a.label}`;
      if (a.run === undefined && a.prompt === undefined) {
        if (k === 0)
          err(where, `${label} has neither "run" nor "prompt": give it one (or a skill that has one)`);
      }
      if (n.run !== undefined && n.prompt !== undefined && k === 0) {
        err(at('prompt'), `${label} has both "run" and "prompt": keep exactly one`, true);
      }
      if (a.run?.includes('${{')) {
        const runPath = k === 0 ? (n.run !== undefined ? at('run') : at('skill')) : at('retry', k - 1, 'run');
        err(
          runPath,
          `${label} "run" contains "\${{": expressions are never pasted into a shell script; move the expression into env (e.g. env: { TITLE: "\${{ github.event.issue.title }}" }) and use "$TITLE" in run`,
        );
      }
      if (a.prompt !== undefined && !a.agent) {
        err(
          k === 0 ? at('prompt') : where,
          `${label} has a prompt but no agent command: set defaults.agent (e.g. "claude -p") or the node's agent`,
        );
      }
      if (a.prompt !== undefined)
        tryTemplate(a.prompt, k === 0 ? at('prompt') : at('retry', k - 1, 'prompt'));
      for (const [name, value] of Object.entries(a.env)) {
        tryTemplate(value, k === 0 ? at('env', name) : at('retry', k - 1, 'env', name));
      }
    });
    (n.execute_conditions ?? []).forEach((c, j) => {
      try {
        parseExpression(stripDelimiters(c));
        if (findTemplateSpans(c).length > 1)
          throw new ExpressionSyntaxError('one expression per condition', c);
      } catch (e) {
        err(at('execute_conditions', j), `node "${n.id}" execute_conditions[${j}]: ${(e as Error).message}`);
      }
    });
    (merged.validates ?? []).forEach((check, j) => {
      const pattern = 'contains' in check ? check.contains : 'matches' in check ? check.matches : undefined;
      const gitMessage = 'git' in check ? check.git.message : undefined;
      for (const p of [pattern, gitMessage]) {
        if (p === undefined) continue;
        try {
          new RegExp(p);
        } catch (e) {
          err(
            at('validates', j),
            `node "${n.id}" validates[${j}]: ${(e as Error).message}; fix the regular expression`,
          );
        }
      }
      if ('output' in check && !(merged.outputs ?? []).includes(check.output)) {
        err(
          at('validates', j),
          `node "${n.id}" checks output "${check.output}" but does not list it in outputs; add it to outputs`,
        );
      }
    });
    return {
      id: n.id,
      ...(merged.description !== undefined ? { description: merged.description } : {}),
      depends_on: n.depends_on ?? [],
      execute_conditions: n.execute_conditions ?? [],
      replay: merged.replay ?? defaults.replay ?? 'never',
      validates: merged.validates ?? [],
      outputs: merged.outputs ?? [],
      approaches: approaches.map(stripUndefinedApproach),
    };
  });

  function tryTemplate(text: string, path: Path) {
    try {
      checkTemplate(text);
    } catch (e) {
      err(path, `${nodeWhere(file, path)}: ${(e as Error).message}`);
    }
  }

  if (errors.length) throw new GraphError(dedupe(errors));
  const body = { name: file.name, description: file.description, nodes };
  return {
    name: file.name,
    ...(file.description !== undefined ? { description: file.description } : {}),
    hash: sha256(canonicalJson(body)),
    path: source.path,
    nodes,
  };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function stripUndefinedApproach(a: Approach): Approach {
  return stripUndefined(a) as Approach;
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
  const deps = new Map(nodes.map((n) => [n.id, n.depends_on ?? []]));
  const state = new Map<string, 1 | 2>();
  for (const start of nodes) {
    if (state.has(start.id)) continue;
    const stack: Array<{ id: string; next: number }> = [{ id: start.id, next: 0 }];
    state.set(start.id, 1);
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const list = deps.get(top.id) ?? [];
      if (top.next >= list.length) {
        state.set(top.id, 2);
        stack.pop();
        continue;
      }
      const dep = list[top.next++]!;
      const s = state.get(dep);
      if (s === 1) {
        const from = stack.findIndex((f) => f.id === dep);
        return stack.slice(from).map((f) => f.id);
      }
      if (s === undefined && deps.has(dep)) {
        state.set(dep, 1);
        stack.push({ id: dep, next: 0 });
      }
    }
  }
  return undefined;
}
