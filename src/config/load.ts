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
export function configFields(path: Path): string[] {
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

/** Parses `.github/interlock.yml`; throws GraphError with located errors. */
export function parseConfig(path: string, text: string): Config {
  const src = parseSource(path, text);
  if (src.errors.length) throw new GraphError(src.errors);
  const r = ConfigSchema.safeParse(src.data ?? {});
  if (!r.success) throw new GraphError(zodIssuesToErrors(src, r.error.issues, placeName, configFields));
  return r.data;
}
