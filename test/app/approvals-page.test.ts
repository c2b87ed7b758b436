// docs/approvals.md's "Approving and settling" section shows a configuration file and gated nodes people copy: they
// must validate.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { parseGraph } from '../../src/graph/load/load.js';

const page = readFileSync(new URL('../../docs/approvals.md', import.meta.url), 'utf8');

describe('docs/approvals.md: Approving and settling', () => {
  const section = page.slice(page.indexOf('## Approving and settling'));
  const example = /### The configuration file[\s\S]*?```yaml\n([\s\S]*?)```/.exec(section)?.[1];

  it('has a complete configuration example that the schema accepts', () => {
    expect(example).toBeDefined();
    const config = parseConfig('docs/approvals.md', example!);
    expect(config.approvals).toEqual({
      permission: 'write',
      approvers: ['release-captain', 'acme/release-team'],
      required: 2,
    });
    expect(config.routes.length).toBeGreaterThan(0);
  });

  it('names every command the parser knows', () => {
    for (const c of [
      '/approve <node> [run-id]',
      '/approve-rerun <node> [run-id]',
      '/settle <node>',
      '/fail-run <reason>',
      '/interlock status',
    ])
      expect(section).toContain(c);
  });

  it('its gated nodes (approval: before with a policy) load as nodes of a graph', () => {
    const nodes = [...section.matchAll(/```yaml\n((?:#[^\n]*\n)?- id: [\s\S]*?)```/g)].map((m) => m[1]!);
    expect(nodes).toHaveLength(2);
    for (const node of nodes) {
      const text = `interlock: 1\nname: release\nnodes:\n  - id: build\n    run: make\n${node
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n')}`;
      const graph = parseGraph({ path: 'docs/approvals.md', text });
      expect(graph.nodes.find((n) => n.id === 'publish')).toMatchObject({ approval: 'before' });
    }
  });
});
