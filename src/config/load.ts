import { GraphError } from '../graph/errors.js';
import { parseSource } from '../graph/source.js';
import { zodIssuesToErrors } from '../graph/zod-wording.js';
import { type Config, ConfigSchema } from './schema.js';

export const CONFIG_PATH = '.github/interlock.yml';

/** Parses `.github/interlock.yml`; throws GraphError with located errors. */
export function parseConfig(path: string, text: string): Config {
  const src = parseSource(path, text);
  if (src.errors.length) throw new GraphError(src.errors);
  const r = ConfigSchema.safeParse(src.data ?? {});
  if (!r.success) {
    throw new GraphError(
      zodIssuesToErrors(src, r.error.issues, (p) =>
        p.length
          ? p
              .map((x) => (typeof x === 'number' ? `[${x}]` : x))
              .join('.')
              .replace(/\.\[/g, '[')
          : 'config',
      ),
    );
  }
  return r.data;
}
