/**
 * Which paths of a change an effect may not write: those matching a protected pattern (`.github/interlock.yml`'s
 * `protected_paths`, the run's graph and its skills) that the node does not name in `allow_protected_paths`.
 * Patterns: `**` any number of folders, `*` any characters within one name, `?` one character.
 */

/** A pattern as a regular expression over a path relative to the repository root. */
export function patternRegExp(pattern: string): RegExp {
  let out = '';
  const p = pattern.replace(/^\.?\//, '');
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '*' && p[i + 1] === '*') {
      // `**/` is any folders (none included); a trailing `**` is everything below.
      if (p[i + 2] === '/') {
        out += '(?:.*/)?';
        i += 2;
      } else {
        out += '.*';
        i += 1;
      }
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** The changed paths a protected pattern matches and no allowed pattern does, in the order given. */
export function protectedChanges(
  paths: readonly string[],
  protectedPatterns: readonly string[],
  allowed: readonly string[],
): string[] {
  const prot = protectedPatterns.map(patternRegExp);
  const ok = allowed.map(patternRegExp);
  return paths.filter((p) => prot.some((r) => r.test(p)) && !ok.some((r) => r.test(p)));
}
