/**
 * The graph loader: a graph text in, a checked, content-addressed Graph out (or a GraphError listing every
 * problem with its file, line and column). It orders the steps; each rule lives in the file it names.
 */

import { gateFields } from '../approval-gate.js';
import { sortedKeys } from '../canonical.js';
import { GraphError, type SourceError } from '../errors.js';
import { graphHash, sortedApproach } from '../graph-hash.js';
import type { Graph, GraphNode } from '../model.js';
import {
  approachesOf,
  type SkillReader,
  type Skills,
  type SourceText,
  skillsOf,
  stripUndefined,
} from '../resolve.js';
import { checkApproaches, checkIdentity, checkValidates, type Report } from '../rules.js';
import { resolvedBudget } from '../schema/budget.js';
import type { Effect } from '../schema/effect.js';
import { checkForEach, forEachField } from '../schema/for-each.js';
import { checkRepeat, repeatField } from '../schema/loop.js';
import { type GraphFile, GraphSchema, type NodeFile } from '../schema/schema.js';
import { checkSubgraphNode } from '../schema/subgraph.js';
import { zodIssuesToErrors } from '../schema/zod-wording.js';
import { AGENT_EXPRESSION_FIX, checkConditions, checkTexts } from '../texts.js';
import { nodeWhere } from './places.js';
import { salvagedRuleErrors } from './salvage.js';
import { errorAt, type Path, parseSource, type SourceDoc } from './source.js';
import { subgraphField, type Within } from './subgraph.js';

/**
 * Parses and validates a graph text; throws GraphError listing every problem found. `within.readGraph` reads the
 * files its `graph:` nodes name (none without it); the rest of `within` is set for a sub-graph (load/subgraph.ts).
 */
export function parseGraph(
  source: SourceText,
  readSkill: SkillReader = () => undefined,
  options: Partial<Within> = {},
): Graph {
  const within: Within = { stack: [source.path], item: false, ...options };
  const src = parseSource(source.path, source.text);
  const file = schemaChecked(src);
  const r: Report = { src, errors: [], ...(within.stack.length > 1 ? { sub: true as const } : {}) };
  checkIdentity(r, file);
  const skills = skillsOf(src, readSkill, r.errors);
  if (file.defaults?.agent?.includes('${{'))
    r.errors.push(
      errorAt(src, ['defaults', 'agent'], `defaults.agent contains "\${{": ${AGENT_EXPRESSION_FIX}`),
    );
  const nodes = file.nodes.map((node, i) => builtNode(r, { file, node, i, skills, within }));
  if (r.errors.length) throw new GraphError(dedupe(r.errors));
  const budget = resolvedBudget(file.budget);
  return {
    name: file.name,
    ...(file.description !== undefined ? { description: file.description } : {}),
    hash: graphHash({ name: file.name, description: file.description, budget, nodes }),
    path: source.path,
    ...(budget ? { budget } : {}),
    nodes,
  };
}

/** The file as the schema reads it; throws the located schema errors (or the YAML's) when it does not match. */
function schemaChecked(src: SourceDoc): GraphFile {
  if (src.errors.length) throw new GraphError(src.errors);
  if (src.data === null || typeof src.data !== 'object' || Array.isArray(src.data)) {
    throw new GraphError([
      errorAt(
        src,
        [],
        'a graph file must be a map with "interlock: 1", "name" and "nodes"; see "Graph files" in docs/graphs.md',
      ),
    ]);
  }
  const parsed = GraphSchema.safeParse(src.data);
  if (!parsed.success) {
    // Every error in one pass: the schema's, and those of the graph rules that can still be checked.
    const schema = zodIssuesToErrors(src, parsed.error.issues, (p) => nodeWhere(src.data as GraphFile, p));
    throw new GraphError(dedupe([...schema, ...salvagedRuleErrors(src)]));
  }
  return parsed.data;
}

/** One node of the file, resolved over its skill and checked. */
interface NodeAt {
  file: GraphFile;
  node: NodeFile;
  i: number;
  skills: Skills;
  within: Within;
}

function builtNode(r: Report, { file, node: n, i, skills, within }: NodeAt): GraphNode {
  const at = (...rest: Path): Path => ['nodes', i, ...rest];
  const defaults = file.defaults ?? {};
  const skill = n.skill ? skills.get(n.skill, at('skill')) : undefined;
  const merged: NodeFile = { ...(skill ?? {}), ...stripUndefined(n) } as NodeFile;
  const approaches = approachesOf({ node: n, skill, merged, defaults, skills, at });
  const skillFailed = n.skill !== undefined && skills.failed(n.skill);
  checkApproaches(r, { node: n, approaches, at, skillFailed });
  const where = (p: Path) => nodeWhere(file, p);
  checkTexts(r.src, n, at(), (p) => where(at(...p)), r.errors);
  (n.retry ?? []).forEach((retry, k) => {
    checkTexts(r.src, retry, at('retry', k), (p) => where(at('retry', k, ...p)), r.errors);
  });
  checkConditions(r.src, n.execute_conditions, at(), `node "${n.id}"`, r.errors);
  checkValidates(r, n, merged, at);
  checkForEach(r.src, merged, at, r.errors, within.item, r.sub);
  checkRepeat(r.src, n, at(), r.errors);
  checkSubgraphNode(r.src, n, at, r.errors);
  if (merged.session && approaches.some((a) => !a.engine || a.prompt === undefined))
    r.errors.push(
      errorAt(
        r.src,
        at('session'),
        `node "${n.id}" has a session but ${approaches.some((a) => a.prompt === undefined) ? 'an approach that is no prompt' : 'no engine'}: a session is an agent conversation; give the node a prompt and an engine (claude-code, codex, copilot or gemini), or remove session`,
      ),
    );
  // Keys in sorted order, here and in each approach (see graphHash).
  return {
    ...(merged.allow_protected_paths ? { allow_protected_paths: merged.allow_protected_paths } : {}),
    approaches: approaches.map(sortedApproach),
    ...(merged.budget ? { budget: resolvedBudget(merged.budget) } : {}),
    ...gateFields(file, merged),
    depends_on: n.depends_on ?? [],
    ...(merged.description !== undefined ? { description: merged.description } : {}),
    // Written by hand, so its keys are sorted here (see graphHash).
    ...(merged.effect ? { effect: sortedKeys(merged.effect) as Effect } : {}),
    execute_conditions: merged.execute_conditions ?? [],
    ...forEachField(merged),
    id: n.id,
    ...networkField(defaults, merged),
    outputs: merged.outputs ?? [],
    ...repeatField(n),
    // An effect asks GitHub whether it already happened before it acts: run again, it never acts twice.
    replay: merged.replay ?? (merged.effect ? 'safe' : (defaults.replay ?? 'never')),
    ...sessionField(file, merged),
    ...softField(merged),
    ...subgraphField(r, n, at, within, parseGraph),
    validates: merged.validates ?? [],
  };
}

/** The node's egress allowlist, its own or the graph's default; nothing without one (so such graphs hash as before). */
function networkField(defaults: NonNullable<GraphFile['defaults']>, n: NodeFile): Pick<GraphNode, 'network'> {
  const network = n.network ?? defaults.network;
  return network ? { network: { allow: [...network.allow] } } : {};
}

/** The node's soft bounds, keys sorted; nothing without one. */
function softField(n: NodeFile): Pick<GraphNode, 'soft'> {
  if (n.soft_timeout_minutes === undefined && n.soft_turns === undefined) return {};
  return {
    soft: {
      ...(n.soft_timeout_minutes !== undefined ? { timeout_minutes: n.soft_timeout_minutes } : {}),
      ...(n.soft_turns !== undefined ? { turns: n.soft_turns } : {}),
    },
  };
}

/** The node's session with its options, keys sorted; nothing without one (so such graphs hash as before). */
function sessionField(file: GraphFile, n: NodeFile): Pick<GraphNode, 'session'> {
  if (!n.session) return {};
  const options = file.sessions?.[n.session];
  const resumeFailed = options?.resume_failed === true;
  const serialized = options?.serialized === true;
  return {
    session: {
      name: n.session,
      ...(resumeFailed ? { resume_failed: true } : {}),
      ...(serialized ? { serialized: true } : {}),
    },
  };
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
