import * as z from 'zod';
import { ConfigSchema } from './schema.js';

/** The JSON Schema for `.github/interlock.yml`, generated from the zod schema. */
export function configJsonSchemaText(): string {
  return `${JSON.stringify(z.toJSONSchema(ConfigSchema, { target: 'draft-2020-12', io: 'input' }), null, 2)}\n`;
}
