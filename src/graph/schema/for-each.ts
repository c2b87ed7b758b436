/**
 * `for_each` (issue 28): a node that becomes one instance per item of a list computed when the node is ready.
 * The node fields (`for_each`, `key`, `max_parallel`, `max_items`, `tolerated_failures`), their rules, the
 * resolved `ForEach` a GraphNode carries, and the names of instances (`<node>[<key>]`). Kept apart from
 * schema.ts so other additions to the schema stay separate blocks.
 */
import * as z from 'zod';
import { findTemplateSpans, parseExpression, stripDelimiters } from '../../expressions/evaluate.js';
import type { SourceError } from '../errors.js';
import { errorAt, type Path, type SourceDoc } from '../load/source.js';
import type { GraphNode } from '../model.js';
import type { NodeFile } from './schema.js';

/** Items a list may have unless the node sets `max_items`: the most jobs one matrix can run. */
const DEFAULT_MAX_ITEMS = 256;
/** The most items `max_items` may allow. */
const MOST_ITEMS = 1_000;

const PERCENT = /^(100|[1-9]?[0-9])%$/;

/** The node fields of this block, spread into NodeSchema. */
export const forEachFields = {
  for_each: z.string().min(1).optional().register(z.globalRegistry, {
    description:
      'One `${{ }}` expression giving a list, e.g. `${{ fromJSON(nodes.plan.outputs.tasks) }}`: the node becomes one instance per item, named `<node>[<key>]`, each with `item` and `index` in its expressions (prompt, env, checks, effect). The list is evaluated once, when the node is ready, and journaled (`NodeExpanded`) before any instance runs.',
  }),
  key: z.string().min(1).optional().register(z.globalRegistry, {
    description:
      'With `for_each`: one `${{ }}` expression over `item` and `index` naming each instance (default the index: `work[0]`, `work[1]`, ...). A key is 1 to 64 letters, digits, `.`, `_` or `-`, starting with a letter or digit, never holding `..`; a key that is not, or that two items share, fails the node.',
  }),
  max_parallel: z.number().int().min(1).max(DEFAULT_MAX_ITEMS).optional().register(z.globalRegistry, {
    description:
      'With `for_each`: the most instances in flight at once; more are not ready until one ends (`mode: plan` lists at most this many). Default: no limit.',
  }),
  max_items: z
    .number()
    .int()
    .min(1)
    .max(MOST_ITEMS)
    .optional()
    .register(z.globalRegistry, {
      description: `With \`for_each\`: the most items the list may have (default \`${DEFAULT_MAX_ITEMS}\`, at most \`${MOST_ITEMS}\`); a longer list fails the node.`,
    }),
  tolerated_failures: z
    .union([z.number().int().min(0), z.string().regex(PERCENT)])
    .optional()
    .register(z.globalRegistry, {
      description:
        "With `for_each`: how many instances may end escalated while the node's dependents still go on, a count (`1`) or a percentage of the items rounded down (`20%`). Default `0`: every instance must complete (or be skipped). The join (`NodeJoined`) names the instances it tolerated.",
    }),
};

/** A resolved `for_each` as a GraphNode carries it; keys in sorted order (see graphHash). */
export interface ForEach {
  key?: string;
  list: string;
  max_items: number;
  max_parallel?: number;
  tolerated_failures?: number | string;
}

/** The node's `for_each`, keys sorted; nothing without one (so such graphs hash as before). */
export function forEachField(n: NodeFile): Pick<GraphNode, 'for_each'> {
  if (n.for_each === undefined) return {};
  return {
    for_each: {
      ...(n.key !== undefined ? { key: n.key } : {}),
      list: n.for_each,
      max_items: n.max_items ?? DEFAULT_MAX_ITEMS,
      ...(n.max_parallel !== undefined ? { max_parallel: n.max_parallel } : {}),
      ...(n.tolerated_failures !== undefined ? { tolerated_failures: n.tolerated_failures } : {}),
    },
  };
}

/** Instances of `items` items that may end escalated: a count, or a percentage rounded down. */
export function toleratedCount(f: ForEach, items: number): number {
  const t = f.tolerated_failures ?? 0;
  if (typeof t === 'number') return t;
  return Math.floor((Number(t.slice(0, -1)) * items) / 100);
}

/** What an instance key may be: safe in a node name, a log file name, a comment command and a matrix value. */
const INSTANCE_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const INSTANCE_KEY_RULE =
  '1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit, without ".."';

/** Why a key cannot name an instance; undefined when it can. */
export function instanceKeyProblem(instanceKey: string): string | undefined {
  if (INSTANCE_KEY_PATTERN.test(instanceKey) && !instanceKey.includes('..')) return undefined;
  return `key ${JSON.stringify(instanceKey.length > 80 ? `${instanceKey.slice(0, 80)}…` : instanceKey)} is not ${INSTANCE_KEY_RULE}`;
}

/** An instance's name: `work[3]`. */
export function instanceId(parent: string, instanceKey: string): string {
  return `${parent}[${instanceKey}]`;
}

const INSTANCE_ID = /^([A-Za-z_][A-Za-z0-9_-]{0,63})\[([^\]]*)\]$/;

/** The parent node and key an instance name holds, or undefined for a name that is no instance's. */
export function parseInstanceId(id: string): { parent: string; key: string } | undefined {
  const m = INSTANCE_ID.exec(id);
  if (!m || instanceKeyProblem(m[2]!) !== undefined) return undefined;
  return { parent: m[1]!, key: m[2]! };
}

/** The node an instance runs as: its parent's fields under its own name, without `for_each`. */
export function instanceNode(parent: GraphNode, instanceKey: string): GraphNode {
  const { for_each: _, ...rest } = parent;
  return { ...rest, id: instanceId(parent.id, instanceKey), instance: { of: parent.id, key: instanceKey } };
}

/** The context names only a `for_each` node's expressions may read. */
const ITEM_NAMES = ['item', 'index'];

/** Whether an expression reads `item` or `index` (it parses only with them). */
function readsItem(expression: string): boolean {
  const parses = (without: string[]) => {
    try {
      parseExpression(expression, { without });
      return true;
    } catch {
      return false;
    }
  };
  // An expression that does not parse at all is reported by checkTexts and checkConditions.
  return parses([]) && !parses(ITEM_NAMES);
}

/** Every expression a node writes itself (the texts an instance evaluates with `item`). */
function nodeExpressions(n: NodeFile): { path: Path; expression: string }[] {
  const out: { path: Path; expression: string }[] = [];
  const add = (text: unknown, ...path: Path) => {
    if (typeof text !== 'string') return;
    try {
      for (const s of findTemplateSpans(text)) out.push({ path, expression: s.expression });
    } catch {
      // A template that does not parse is reported by checkTexts.
    }
  };
  add(n.prompt, 'prompt');
  for (const [k, v] of Object.entries(n.env ?? {})) add(v, 'env', k);
  (n.execute_conditions ?? []).forEach((c, j) => {
    out.push({ path: ['execute_conditions', j], expression: stripDelimiters(c) });
  });
  (n.retry ?? []).forEach((r, k) => {
    add(r.prompt, 'retry', k, 'prompt');
    for (const [name, v] of Object.entries(r.env ?? {})) add(v, 'retry', k, 'env', name);
  });
  for (const [kind, spec] of Object.entries((n.effect ?? {}) as Record<string, Record<string, unknown>>))
    for (const [field, v] of Object.entries(spec ?? {})) add(v, 'effect', kind, field);
  return out;
}

/** The rules of `for_each`: its companions need it, it and `key` are one expression each, `item` needs it. */
export function checkForEach(
  src: SourceDoc,
  n: NodeFile,
  at: (...rest: Path) => Path,
  errors: SourceError[],
  itemInScope = false,
  inSubgraph = false,
): void {
  const err = (path: Path, message: string, key = false) => errors.push(errorAt(src, path, message, key));
  if (n.for_each === undefined) {
    for (const f of ['key', 'max_parallel', 'max_items', 'tolerated_failures'] as const)
      if (n[f] !== undefined)
        err(at(f), `node "${n.id}" has ${f} but no for_each: ${f} belongs to a for_each node`, true);
    // In a sub-graph run once per item (`graph:` with `for_each`), every node reads that item.
    if (itemInScope) return;
    for (const { path, expression } of nodeExpressions(n))
      if (readsItem(expression))
        err(
          at(...path),
          `node "${n.id}" reads item or index in "${expression}", which only a for_each node's instances have: ${inSubgraph ? 'in a sub-graph, give for_each to the node that names this file (graph: with for_each), so each item runs it' : 'add for_each'}, or read nodes.<id>.outputs`,
        );
    return;
  }
  const oneExpression = (text: string, field: 'for_each' | 'key', what: string) => {
    try {
      const spans = findTemplateSpans(text);
      if (spans.length !== 1 || spans[0]!.start !== 0 || spans[0]!.end !== text.trim().length)
        throw new Error(`it must be one \${{ }} expression giving ${what}`);
      parseExpression(spans[0]!.expression);
    } catch (e) {
      err(at(field), `node "${n.id}" ${field}: ${(e as Error).message}`);
    }
  };
  if (n.session !== undefined)
    err(
      at('session'),
      `node "${n.id}" has a session and for_each: its instances run apart (in parallel jobs), so they cannot continue one conversation; remove session`,
    );
  oneExpression(n.for_each.trim(), 'for_each', 'a list, e.g. ${{ fromJSON(nodes.plan.outputs.tasks) }}');
  if (n.key !== undefined) oneExpression(n.key.trim(), 'key', 'the key of an item, e.g. ${{ item.id }}');
  if (readsItem(stripDelimiters(n.for_each)))
    err(
      at('for_each'),
      `node "${n.id}" for_each reads item or index, which exist only once the list is made`,
    );
}
