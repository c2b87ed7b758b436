import * as z from 'zod';
import { GraphSchema } from './schema.js';

/** The JSON Schema for graph files, generated from the zod schema so editors and docs cannot drift. */
export function graphJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(GraphSchema, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
}

export function graphJsonSchemaText(): string {
  return `${JSON.stringify(graphJsonSchema(), null, 2)}\n`;
}
