/**
 * Skills and approaches: reading and checking `skills/<name>.yml` (once per name), and building a node's
 * approaches (attempt 1, `retry[0]`, `retry[1]`) by laying the node and each retry entry over its skill and
 * the graph's defaults.
 */
import type { SourceError } from './errors.js';
import { restString } from './load/places.js';
import { errorAt, type Path, parseSource, type SourceDoc } from './load/source.js';
import { type Approach, type ApproachLabel, DEFAULT_TIMEOUT_MINUTES, ENGINE_AGENTS } from './model.js';
import { type GraphFile, type NodeFile, type SkillFile, SkillSchema } from './schema/schema.js';
import { zodIssuesToErrors } from './schema/zod-wording.js';
import { type ApproachFields, checkConditions, checkTexts } from './texts.js';

export interface SourceText {
  path: string;
  text: string;
}

/** Reads `skills/<name>.yml` beside the graph; undefined when it does not exist. */
export type SkillReader = (name: string) => SourceText | undefined;

/** The skills a graph names, each read and checked once; problems go to the graph's error list. */
export interface Skills {
  /** The skill, or undefined when it is missing or has errors (reported at `at` or in its own file). */
  get(name: string, at: Path): SkillFile | undefined;
  /** Whether the skill was looked up and could not be used. */
  failed(name: string): boolean;
}

export function skillsOf(src: SourceDoc, readSkill: SkillReader, errors: SourceError[]): Skills {
  const skills = new Map<string, SkillFile | null>();
  return {
    get(name, at) {
      if (!skills.has(name)) {
        const text = readSkill(name);
        if (!text) {
          errors.push(
            errorAt(
              src,
              at,
              `skill "${name}" not found: create skills/${name}.yml beside the graph, or fix the name`,
            ),
          );
          skills.set(name, null);
        } else {
          const r = parseSkill(name, text);
          errors.push(...r.errors);
          skills.set(name, r.skill ?? null);
        }
      }
      return skills.get(name) ?? undefined;
    },
    failed: (name) => skills.get(name) === null,
  };
}

function parseSkill(name: string, source: SourceText): { skill?: SkillFile; errors: SourceError[] } {
  const src = parseSource(source.path, source.text);
  if (src.errors.length) return { errors: src.errors };
  const result = SkillSchema().safeParse(src.data);
  if (!result.success) {
    return {
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
  return { skill, errors };
}

function stringEnv(env: Record<string, string | number | boolean>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) out[k] = String(v);
  return out;
}

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
  if (over.engine !== undefined) next.engine = over.engine;
  if (over.timeout_minutes !== undefined) next.timeout_minutes = over.timeout_minutes;
  return next;
}

/** What building one node's approaches needs. */
interface ApproachInput {
  node: NodeFile;
  /** The node's own skill, already read. */
  skill: SkillFile | undefined;
  /** The node over its skill: where its retry list comes from. */
  merged: NodeFile;
  defaults: NonNullable<GraphFile['defaults']>;
  skills: Skills;
  at: (...rest: Path) => Path;
}

/** The node's approaches in attempt order; without retry[0], attempt 2 repeats attempt 1. */
export function approachesOf({ node, skill, merged, defaults, skills, at }: ApproachInput): Approach[] {
  const base = overlay(
    overlay(
      {
        env: {},
        timeout_minutes: defaults.timeout_minutes ?? DEFAULT_TIMEOUT_MINUTES,
        agent: defaults.agent,
        // Set only when given, so graphs without an engine hash as before.
        ...(defaults.engine ? { engine: defaults.engine } : {}),
      },
      skill,
    ),
    node,
  );
  if (node.skill) base.skill = node.skill;
  const approaches: Approach[] = [{ label: 'default', ...base }];
  const retries = merged.retry ?? [];
  retries.forEach((r, k) => {
    const rSkill = r.skill ? skills.get(r.skill, at('retry', k, 'skill')) : undefined;
    const next = overlay(overlay(base, rSkill), r);
    if (r.skill) next.skill = r.skill;
    else if (rSkill === undefined && (r.run !== undefined || r.prompt !== undefined)) next.skill = undefined;
    approaches.push({ label: `retry[${k}]` as ApproachLabel, ...next });
  });
  if (retries.length < 1) approaches.push({ ...approaches[0]! });
  return approaches.map(withEngineAgent);
}

/** A prompt approach with an engine and no agent command runs the engine's own CLI. */
function withEngineAgent(a: Approach): Approach {
  if (a.prompt === undefined || !a.engine || a.agent) return a;
  return { ...a, agent: ENGINE_AGENTS[a.engine] };
}

/** The node's fields with undefined ones left out, to lay over its skill. */
export function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) {
    const v = (o as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = v;
  }
  return out as Partial<T>;
}
