/**
 * The graph rules that can still be checked when the file does not match the schema: so that `validate` lists
 * every error it can find in one pass (an unknown `depends_on`, `${{` in `run`) instead of the schema's alone.
 * Only what is plainly of the right type is read; a node or field that is not is left to the schema's errors.
 */

import type { SourceError } from '../errors.js';
import { approachesOf } from '../resolve.js';
import { checkApproaches, checkIdentity, checkValidates, type Report } from '../rules.js';
import { ID_PATTERN } from '../schema/check.js';
import { type GraphFile, GraphSchema, type NodeFile, NodeSchema } from '../schema/schema.js';
import { type ApproachFields, checkConditions, checkTexts } from '../texts.js';
import { nodeWhere } from './places.js';
import type { Path, SourceDoc } from './source.js';

const isMap = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
/** A list of strings, or undefined when it is not one (its indexes must stay those of the file). */
const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : undefined;
/** A list of names as the schema allows them, or undefined: messages quote names, which must stay one line. */
const names = (v: unknown): string[] | undefined =>
  strings(v)?.every((x) => ID_PATTERN.test(x)) ? (v as string[]) : undefined;
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
/** The env variable names the schema allows (a place is named by them, on one line). */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const TEXT_FIELDS = ['description', 'run', 'prompt', 'agent', 'skill'] as const;

function approachFields(raw: Record<string, unknown>): ApproachFields {
  const out: Record<string, unknown> = {};
  for (const f of TEXT_FIELDS) if (text(raw[f]) !== undefined) out[f] = raw[f];
  if (isMap(raw.env)) out.env = Object.fromEntries(Object.entries(raw.env).filter(([k]) => ENV_NAME.test(k)));
  return out as ApproachFields;
}

/**
 * A node as far as it can be read. One without a valid id of its own gets one that no other node can name (nor
 * be offered as a did-you-mean), and only its texts are checked: a message must not name it by that id.
 */
function salvagedNode(raw: unknown, i: number): NodeFile & { named: boolean } {
  const m = isMap(raw) ? raw : {};
  const id = text(m.id);
  const named = id !== undefined && ID_PATTERN.test(id);
  const node: Record<string, unknown> = {
    ...approachFields(m),
    id: named ? id : `${'\u0000'.repeat(80)}${i}`,
    named,
  };
  if (named) {
    for (const f of ['depends_on', 'outputs'] as const) if (names(m[f])) node[f] = m[f];
    if (strings(m.execute_conditions)) node.execute_conditions = m.execute_conditions;
  }
  if (Array.isArray(m.retry)) node.retry = m.retry.map((r) => approachFields(isMap(r) ? r : {}));
  return node as NodeFile & { named: boolean };
}

/**
 * The approach and evidence rules (run or prompt, an agent for a prompt, a third attempt that differs, patterns
 * that compile) for a node the schema reads as it is, while another part of the file is wrong. A node that uses
 * a skill is left until the file loads: its skill would have to be read first.
 */
function approachRules(
  r: Report,
  raw: unknown,
  i: number,
  defaults: NonNullable<GraphFile['defaults']>,
): void {
  const parsed = NodeSchema.safeParse(raw);
  if (!parsed.success) return;
  const n = parsed.data;
  if (n.skill !== undefined || n.retry?.some((x) => x.skill !== undefined)) return;
  const at = (...rest: Path): Path => ['nodes', i, ...rest];
  const skills = { get: () => undefined, failed: () => false };
  const approaches = approachesOf({ node: n, skill: undefined, merged: n, defaults, skills, at });
  checkApproaches(r, { node: n, approaches, at, skillFailed: false });
  checkValidates(r, n, n, at);
}

/** The graph rules' errors for a file the schema refused. */
export function salvagedRuleErrors(src: SourceDoc): SourceError[] {
  const data = isMap(src.data) ? src.data : {};
  const nodes = Array.isArray(data.nodes) ? data.nodes.map(salvagedNode) : [];
  const r: Report = { src, errors: [] };
  checkIdentity(r, { nodes } as unknown as GraphFile);
  const where = (p: Path) => nodeWhere(data as GraphFile, p);
  nodes.forEach((n, i) => {
    const at: Path = ['nodes', i];
    checkTexts(src, n, at, (p) => where([...at, ...p]), r.errors);
    (n.retry ?? []).forEach((retry, k) => {
      checkTexts(src, retry, [...at, 'retry', k], (p) => where([...at, 'retry', k, ...p]), r.errors);
    });
    if (n.named) checkConditions(src, n.execute_conditions, at, `node "${n.id}"`, r.errors);
  });
  const defaults = GraphSchema.shape.defaults.safeParse(data.defaults);
  if (defaults.success && Array.isArray(data.nodes))
    data.nodes.forEach((raw, i) => {
      approachRules(r, raw, i, defaults.data ?? {});
    });
  return r.errors;
}
