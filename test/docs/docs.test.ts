import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseGraph } from '../../src/graph/load/load.js';
import { graphJsonSchemaText } from '../../src/graph/schema/json-schema.js';
import { loadGraphFile } from '../../src/runner/journal-io/graph-file.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const graphs = readFileSync(new URL('../../docs/graphs.md', import.meta.url), 'utf8');

describe('documentation stays true', () => {
  it('the graph example of docs/graphs.md loads without errors', () => {
    const section = graphs.slice(graphs.indexOf('## Graph files'));
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
    expect(yaml).toBeDefined();
    const graph = parseGraph({ path: 'docs/graphs.md', text: yaml! });
    expect(graph.nodes.map((n) => n.id)).toEqual(['reproduce', 'implement', 'changelog', 'summary']);
    expect(graph.nodes[1]!.approaches.map((a) => a.label)).toEqual(['default', 'retry[0]', 'retry[1]']);
  });

  it('schema/graph.schema.json is what the zod schema generates (run npm run schema)', () => {
    const committed = readFileSync(new URL('../../schema/graph.schema.json', import.meta.url), 'utf8');
    expect(committed).toBe(graphJsonSchemaText());
  });

  it('the demo graph is valid', () => {
    const g = loadGraphFile(new URL('../../examples/demo/fix-bug.yml', import.meta.url).pathname);
    expect(g.nodes.map((n) => [n.id, n.replay])).toEqual([
      ['reproduce', 'never'],
      ['implement', 'never'],
      ['docs', 'safe'],
      ['publish', 'never'],
    ]);
  });

  it('the README quick start names the two commands, and .ci/run runs the same test command', () => {
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm test');
    expect(readFileSync(new URL('../../.ci/run', import.meta.url), 'utf8')).toMatch(/^npm test$/m);
  });
});
