// Writes schema/graph.schema.json and schema/config.schema.json from the zod schemas.
import { writeFileSync } from 'node:fs';
import { configJsonSchemaText } from '../src/config/json-schema.js';
import { graphJsonSchemaText } from '../src/graph/schema/json-schema.js';

writeFileSync(new URL('../schema/graph.schema.json', import.meta.url), graphJsonSchemaText());
writeFileSync(new URL('../schema/config.schema.json', import.meta.url), configJsonSchemaText());
console.log('wrote schema/graph.schema.json and schema/config.schema.json');
