// Which paths of an effect's change are protected: the patterns' `**`, `*` and `?`, and allow_protected_paths.
import { describe, expect, it } from 'vitest';
import {
  patternRegExp,
  protectedChanges,
  runProtectedPaths,
} from '../../src/protocol/attempt/protected-paths.js';

describe('protected paths', () => {
  it('`.github/**` covers everything below .github and nothing beside it', () => {
    const r = patternRegExp('.github/**');
    expect(
      ['.github/workflows/ci.yml', '.github/interlock.yml', '.github/a/b/c'].every((p) => r.test(p)),
    ).toBe(true);
    expect(['github/x', '.githubx/y', 'src/.github/x', '.github'].some((p) => r.test(p))).toBe(false);
  });
  it('`*` stays within one name, `**/` spans folders (none included), `?` is one character', () => {
    expect(patternRegExp('deploy/*.yml').test('deploy/prod.yml')).toBe(true);
    expect(patternRegExp('deploy/*.yml').test('deploy/a/prod.yml')).toBe(false);
    expect(patternRegExp('**/secrets.json').test('secrets.json')).toBe(true);
    expect(patternRegExp('**/secrets.json').test('a/b/secrets.json')).toBe(true);
    expect(patternRegExp('v?.txt').test('v1.txt')).toBe(true);
    expect(patternRegExp('a.b').test('aXb')).toBe(false);
  });
  it('names each protected path the node does not allow, in the order of the change', () => {
    const changed = ['src/a.js', '.github/workflows/ci.yml', '.github/interlock/g.yml', 'README.md'];
    expect(protectedChanges(changed, ['.github/**'], [])).toEqual([
      '.github/workflows/ci.yml',
      '.github/interlock/g.yml',
    ]);
    expect(protectedChanges(changed, ['.github/**'], ['.github/workflows/ci.yml'])).toEqual([
      '.github/interlock/g.yml',
    ]);
    expect(protectedChanges(changed, [], [])).toEqual([]);
  });
});

// Issue 36: the list was built twice; the runner's own (where no repository setting is passed) held only
// `.github/**` and the graph, without the skills and the sub-graphs' files.
describe('runProtectedPaths, the one list of what an effect may not change', () => {
  const review = { nodes: [{ id: 'look', subgraph: { path: 'inner/deep.yml', graph: { nodes: [] } } }] };
  const graph = {
    path: 'flows/main.yml',
    nodes: [{ id: 'build' }, { id: 'review', subgraph: { path: 'review.yml', graph: review } }],
  } as never;

  it("holds, besides the default, the graph, its sub-graphs' files and the skills beside each", () => {
    expect(runProtectedPaths(graph)).toEqual(
      [
        '.github/**',
        'flows/main.yml',
        'flows/skills/**',
        'flows/review.yml',
        'flows/skills/**',
        'flows/inner/deep.yml',
        'flows/inner/skills/**',
      ].filter((p, i, all) => all.indexOf(p) === i),
    );
  });

  it("puts the repository's own patterns first, each once", () => {
    expect(runProtectedPaths(graph, ['docs/**', 'flows/main.yml']).slice(0, 3)).toEqual([
      'docs/**',
      'flows/main.yml',
      'flows/skills/**',
    ]);
  });
});
