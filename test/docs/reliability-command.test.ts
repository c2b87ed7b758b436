// `npm run reliability` as docs/RELIABILITY.md gives it, on its shortest suite: the script runs the suite,
// reads its results and prints the table the page holds. The full run is what produces the page's figures.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;

describe('npm run reliability', () => {
  it('runs a suite (--only fuzz, at its npm test counts) and prints its rows of the table', () => {
    const r = spawnSync(
      'npm',
      ['run', 'reliability', '--silent', '--', '--only', 'fuzz', '--fuzz-scale', '100'],
      {
        cwd: ROOT,
        env: { ...process.env },
        encoding: 'utf8',
        timeout: 240_000,
      },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Measured by `npm run reliability` on \d{4}-\d\d-\d\d/m);
    expect(r.stdout).toContain('| suite | figure | value |');
    const held = /\| fuzz \| properties that held \| (\d+) of (\d+) \|/.exec(r.stdout);
    expect(held, r.stdout).not.toBeNull();
    expect(Number(held![2])).toBeGreaterThanOrEqual(10);
    expect(held![1]).toBe(held![2]);
    expect(r.stdout).not.toContain('FAILED');
  }, 300_000);

  it('refuses an unknown suite, naming the known ones', () => {
    const r = spawnSync('npm', ['run', 'reliability', '--silent', '--', '--only', 'crashes'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(
      '--only: unknown suite "crashes"; known: crash, races, faults, hostile, injection, fuzz',
    );
  }, 90_000);
});
