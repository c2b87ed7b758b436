// Which paths of an effect's change are protected: the patterns' `**`, `*` and `?`, and allow_protected_paths.
import { describe, expect, it } from 'vitest';
import { patternRegExp, protectedChanges } from '../../src/protocol/protected-paths.js';

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
