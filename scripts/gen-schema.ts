// Writes schema/graph.schema.json from the zod schema.
import { writeFileSync } from 'node:fs';
import { graphJsonSchemaText } from '../src/graph/json-schema.js';

writeFileSync(new URL('../schema/graph.schema.json', import.meta.url), graphJsonSchemaText());
console.log('wrote schema/graph.schema.json');
