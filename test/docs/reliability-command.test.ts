// `npm run reliability` as docs/RELIABILITY.md gives it: what it refuses before it runs anything. No suite runs
// here (npm test runs each suite's bounded sample itself); the nightly workflow runs the script whole.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;

describe('npm run reliability', () => {
  it('refuses an unknown suite, naming the known ones', () => {
    const r = spawnSync('npm', ['run', 'reliability', '--silent', '--', '--only', 'crashes'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      '--only: unknown suite "crashes"; known: crash, races, faults, hostile, injection, fuzz, model',
    );
  }, 90_000);

  it.each([
    [['--repeat', '0'], '--repeat: "0" is not a whole number of times (1 or more)'],
    [['--jobs', 'x'], '--jobs: "x" is not a whole number of scenarios at once (1 or more)'],
    [['--grep', '(session'], '--grep: "(session" is not a regular expression'],
    [
      ['--grep', 'session', '--write-doc'],
      '--write-doc writes the whole table: run it without --grep and --repeat',
    ],
  ])(
    'refuses %j before running anything',
    (args, message) => {
      const r = spawnSync('npm', ['run', 'reliability', '--silent', '--', ...args], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(message);
      // One line, no stack trace: the arguments are read before any suite loads.
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    },
    90_000,
  );
});
