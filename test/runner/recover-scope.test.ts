// What a step for one node may recover: that node and everything it depends on, never its siblings.
import { describe, expect, it } from 'vitest';
import { parseGraph } from '../../src/graph/load/load.js';
import { withDependencies } from '../../src/runner/recovery/recover.js';

const graph = parseGraph({
  path: 'g.yml',
  text: `interlock: 1
name: scope
nodes:
  - id: a
    run: echo a
  - id: b
    depends_on: [a]
    run: echo b
  - id: side
    run: echo side
  - id: c
    depends_on: [b, d]
    run: echo c
  - id: d
    run: echo d
`,
});

describe('withDependencies', () => {
  it('is the node and its dependencies, transitively', () => {
    expect([...withDependencies(graph, 'c')].sort()).toEqual(['a', 'b', 'c', 'd']);
    expect([...withDependencies(graph, 'b')].sort()).toEqual(['a', 'b']);
  });

  it('leaves out siblings (a matrix job’s other nodes) and nodes that depend on it', () => {
    expect([...withDependencies(graph, 'side')]).toEqual(['side']);
    expect(withDependencies(graph, 'a').has('b')).toBe(false);
  });
});
