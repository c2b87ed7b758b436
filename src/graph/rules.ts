/**
 * The graph's own rules, checked once its file matches the schema: unique ids, names the expression evaluator
 * can hold, `depends_on` that names other nodes once and has no cycle, approaches that can run (and a third
 * attempt that differs), and `validates[]` checks whose patterns and outputs make sense.
 */
import { findDependencyCycle } from './cycles.js';
import { type SourceError, suggestion } from './errors.js';
import { errorAt, type Path, type SourceDoc } from './load/source.js';
import type { Approach } from './model.js';
import type { GraphFile, NodeFile } from './schema/schema.js';

/** Where the rules report: the graph's source, and the list every problem is added to. */
export interface Report {
  src: SourceDoc;
  errors: SourceError[];
  /** Set for a sub-graph's file (a `graph:` node names it), whose nodes depend only on each other. */
  sub?: true;
}

function err(r: Report, path: Path, message: string, key = false): void {
  r.errors.push(errorAt(r.src, path, message, key));
}

/** Names GitHub's expression evaluator cannot hold as keys (it lowercases names into a plain object). */
const RESERVED_NAMES = new Set(['__proto__', 'constructor']);

/** Node ids, reserved names and edges; returns each id's first index. */
export function checkIdentity(r: Report, file: GraphFile): Map<string, number> {
  const firstIndex = new Map<string, number>();
  file.nodes.forEach((n, i) => {
    const seen = firstIndex.get(n.id);
    if (seen !== undefined) {
      const line = errorAt(r.src, ['nodes', seen, 'id'], '').line;
      err(
        r,
        ['nodes', i, 'id'],
        `node id "${n.id}" is used twice (first at line ${line}); give each node its own id`,
      );
    } else firstIndex.set(n.id, i);
  });
  const ids = [...firstIndex.keys()];
  file.nodes.forEach((n, i) => {
    checkNames(r, n, i);
    checkEdges(r, n, i, { firstIndex, ids });
  });
  if (r.errors.length === 0) {
    const dependencyCycle = findDependencyCycle(file.nodes);
    if (dependencyCycle) {
      err(
        r,
        ['nodes', firstIndex.get(dependencyCycle[0]!)!, 'depends_on'],
        `depends_on cycle: ${[...dependencyCycle, dependencyCycle[0]].join(' -> ')}; remove one of these depends_on entries`,
      );
    }
  }
  return firstIndex;
}

// GitHub's expression evaluator keeps names in a plain object: these two collide with its built-ins, and
// nodes.<id> would silently read as empty.
function checkNames(r: Report, n: NodeFile, i: number): void {
  const reserved = (name: string, path: Path) =>
    err(r, path, `node "${n.id}": "${name}" is reserved (expressions cannot read it); choose another name`);
  if (RESERVED_NAMES.has(n.id.toLowerCase())) reserved(n.id, ['nodes', i, 'id']);
  n.outputs?.forEach((o, k) => {
    if (RESERVED_NAMES.has(o.toLowerCase())) reserved(o, ['nodes', i, 'outputs', k]);
  });
}

function checkEdges(
  r: Report,
  n: NodeFile,
  i: number,
  known: { firstIndex: Map<string, number>; ids: string[] },
): void {
  const deps = n.depends_on ?? [];
  const seenDeps = deps.length > 1 ? new Set<string>() : undefined;
  deps.forEach((dep, j) => {
    const at: Path = ['nodes', i, 'depends_on', j];
    if (dep === n.id) err(r, at, `node "${n.id}" depends on itself; remove "${dep}" from its depends_on`);
    else if (!known.firstIndex.has(dep))
      err(
        r,
        at,
        `node "${n.id}" depends on "${dep}", which is not a node${r.sub ? ' of this sub-graph (its nodes depend only on each other: the depends_on of the node that names this file orders it after others)' : ''}${suggestion(dep, known.ids)}`,
      );
    else if (seenDeps?.has(dep))
      err(r, at, `node "${n.id}" lists "${dep}" twice in depends_on; list it once`);
    seenDeps?.add(dep);
  });
}

/** What the approach rules need to know about one node. */
interface NodeApproaches {
  node: NodeFile;
  approaches: Approach[];
  at: (...rest: Path) => Path;
  /** Whether the node's own skill could not be used (its error is already reported). */
  skillFailed: boolean;
}

/** Each approach can run, and attempt 3 differs from attempt 1 (rule 5). */
export function checkApproaches(r: Report, { node: n, approaches, at, skillFailed }: NodeApproaches): void {
  if (n.effect) {
    checkEffectNode(r, n, at);
    return;
  }
  // A sub-graph node runs its child graph's nodes; what it may not have is checked in schema/subgraph.ts.
  if (n.graph !== undefined) return;
  if (n.allow_protected_paths)
    err(
      r,
      at('allow_protected_paths'),
      `node "${n.id}" has allow_protected_paths but no effect: only an effect changes files in GitHub`,
      true,
    );
  const third = approaches[2];
  if (third && sameWork(third, approaches[0]!)) {
    err(
      r,
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
    if (a.run === undefined && a.prompt === undefined && k === 0 && !skillFailed)
      err(r, where, `${label} has neither "run" nor "prompt": give it one (or a skill that has one)`);
    if (n.run !== undefined && n.prompt !== undefined && k === 0)
      err(r, at('prompt'), `${label} has both "run" and "prompt": keep exactly one`, true);
    if (a.prompt !== undefined && !a.agent && (k === 0 || a.prompt !== own.prompt)) {
      err(
        r,
        k === 0 ? at('prompt') : where,
        `${label} has a prompt but no agent command: set defaults.agent (e.g. "claude -p") or the node's agent`,
      );
    }
  });
}

function sameWork(a: Approach, b: Approach): boolean {
  return a.run === b.run && a.prompt === b.prompt && a.agent === b.agent && a.skill === b.skill;
}

/** Patterns that compile, no `${{` in a check's command, and outputs a check reads that the node lists. */
export function checkValidates(r: Report, n: NodeFile, merged: NodeFile, at: (...rest: Path) => Path): void {
  (merged.validates ?? []).forEach((check, j) => {
    const pattern = (p: string | undefined, ...field: Path) => {
      if (p === undefined) return;
      try {
        new RegExp(p);
      } catch (e) {
        err(
          r,
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
        r,
        at('validates', j, 'command'),
        `node "${n.id}" validates[${j}] command contains "\${{": expressions are never pasted into a shell script; give the node an env variable (e.g. env: { BRANCH: "\${{ nodes.push.outputs.branch }}" }) and use "$BRANCH" in the command`,
      );
    }
    if ('output' in check && !(merged.outputs ?? []).includes(check.output)) {
      err(
        r,
        at('validates', j),
        `node "${n.id}" checks output "${check.output}" but does not list it in outputs; add it to outputs`,
      );
    }
  });
}

/** An effect node is interlock's own act: no command, prompt, agent or skill of its own, and no other approach. */
function checkEffectNode(r: Report, n: NodeFile, at: (...rest: Path) => Path): void {
  for (const key of ['run', 'prompt', 'agent', 'skill', 'retry'] as const)
    if (n[key] !== undefined)
      err(
        r,
        at(key),
        `node "${n.id}" has both "effect" and "${key}": an effect is performed by interlock itself, so it runs no command and has no other approach (a failed effect is tried once more as it is)`,
        true,
      );
}
