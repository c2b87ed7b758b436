// `tsx scripts/release-notes.ts <version>`: prints CHANGELOG.md's section for that version, the release notes the
// release workflow publishes. A version without a section (or with an empty one) fails, naming the fix.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The body of `## [version]` in a Keep a Changelog file, without its heading; throws when there is none. */
export function releaseNotes(changelog: string, version: string): string {
  const lines = changelog.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`## [${version}]`));
  if (start < 0)
    throw new Error(
      `CHANGELOG.md has no "## [${version}] - YYYY-MM-DD" section: move the Unreleased entries under one and commit it`,
    );
  const end = lines.findIndex((l, i) => i > start && /^## /.test(l));
  const body = lines
    .slice(start + 1, end < 0 ? undefined : end)
    .filter((l) => !/^\[[^\]]+\]: /.test(l))
    .join('\n')
    .trim();
  if (!body) throw new Error(`CHANGELOG.md's section for ${version} is empty: say what changed`);
  return `${body}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const version = process.argv[2];
  try {
    if (!version) throw new Error('usage: tsx scripts/release-notes.ts <version>');
    const path = fileURLToPath(new URL('../CHANGELOG.md', import.meta.url));
    process.stdout.write(releaseNotes(readFileSync(path, 'utf8'), version));
  } catch (e) {
    console.error((e as Error).message);
    process.exit(1);
  }
}
