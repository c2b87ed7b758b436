/** Reading `.github/interlock.yml`: located errors worded from the config's own schema, not the graph's. */
import { GraphError } from '../graph/errors.js';
import { type Path, parseSource } from '../graph/load/source.js';
import { zodIssuesToErrors } from '../graph/schema/zod-wording.js';
import { ApprovalsSchema, type Config, ConfigSchema, RepoBudgetSchema, RouteSchema } from './schema.js';

export const CONFIG_PATH = '.github/interlock.yml';

const CONFIG_FIELDS = Object.keys(ConfigSchema.shape);
const ROUTE_FIELDS = Object.keys(RouteSchema.shape);
const APPROVALS_FIELDS = Object.keys(ApprovalsSchema.shape);
const BUDGET_FIELDS = Object.keys(RepoBudgetSchema.shape);

/** The fields the config schema allows at a path, so "did you mean" and "allowed:" name the config's fields. */
function configFields(path: Path): string[] {
  if (path.length === 0) return CONFIG_FIELDS;
  if (path.length === 1 && path[0] === 'approvals') return APPROVALS_FIELDS;
  if (path.length === 1 && path[0] === 'budget') return BUDGET_FIELDS;
  if (path.length === 2 && path[0] === 'routes' && typeof path[1] === 'number') return ROUTE_FIELDS;
  return [];
}

const placeName = (p: Path): string =>
  p.length
    ? p
        .map((x) => (typeof x === 'number' ? `[${x}]` : x))
        .join('.')
        .replace(/\.\[/g, '[')
    : 'config';

/** Parses `.github/interlock.yml`; throws GraphError with located errors. Faces ask a configLoader instead. */
export function parseConfig(path: string, text: string): Config {
  const src = parseSource(path, text);
  if (src.errors.length) throw new GraphError(src.errors);
  const r = ConfigSchema.safeParse(src.data ?? {});
  if (!r.success) throw new GraphError(zodIssuesToErrors(src, r.error.issues, placeName, configFields));
  return r.data;
}

/** The config of a repository that has no `.github/interlock.yml`: the schema's defaults. */
export const configDefaults = (): Config => ConfigSchema.parse({});

/**
 * Reads one file of the repository where a face reads it (the step's checkout, the default branch through the
 * API, the CLI's working directory): its text, or undefined when there is no such file.
 */
type RepoFileReader = (path: string) => string | undefined | Promise<string | undefined>;

/** The repository's config, asked for as often as needed and read at most once. */
export interface ConfigLoader {
  /** The config, or undefined when the repository has none. Rejects with GraphError (the same each time) when invalid. */
  file(): Promise<Config | undefined>;
  /** The config, with the schema's defaults when the repository has none. */
  orDefaults(): Promise<Config>;
  /** The file's text as read (to point at a line of it), or undefined when there is none. */
  text(): Promise<string | undefined>;
}

/**
 * The one loader of `.github/interlock.yml`: every face makes one per step (per delivery in the App, per
 * command in the CLI) over its own way of reading, and every reader of the config in that step asks it. The
 * first question reads and parses; the others get the same answer, so one step never sees two versions of the
 * file (a node that edits the checkout after the first read changes nothing this step believes).
 */
export function configLoader(read: RepoFileReader): ConfigLoader {
  let readOnce: Promise<string | undefined> | undefined;
  let parsedOnce: Promise<Config | undefined> | undefined;
  const text = () => {
    readOnce ??= Promise.resolve().then(() => read(CONFIG_PATH));
    return readOnce;
  };
  const file = () => {
    parsedOnce ??= text().then((t) => (t === undefined ? undefined : parseConfig(CONFIG_PATH, t)));
    return parsedOnce;
  };
  return { file, text, orDefaults: async () => (await file()) ?? configDefaults() };
}
