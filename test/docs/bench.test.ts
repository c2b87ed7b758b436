// `npm run bench` as the README gives it, in its quick mode (small sizes, one run each): every benchmark runs
// and the page it writes has every section. The figures themselves come from the full run (docs/BENCHMARKS.md).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;

describe('npm run bench', () => {
  it('runs every benchmark and writes the page with every section (BENCH_QUICK=1)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'interlock-bench-'));
    try {
      const out = join(dir, 'BENCHMARKS.md');
      const r = spawnSync('npm', ['run', 'bench', '--silent'], {
        cwd: ROOT,
        env: { ...process.env, BENCH_QUICK: '1', BENCH_OUT: out },
        encoding: 'utf8',
        timeout: 480_000,
      });
      expect(r.status, r.stderr).toBe(0);
      const page = readFileSync(out, 'utf8');
      for (const section of [
        '# Benchmarks',
        '## GitHub API requests per node step',
        '## Cold start of dist/index.js',
        '## A serialized chain against one node a call',
        '## Bundle size',
        '## Bytes written to GitHub per event as a journal grows',
        '## Parallel jobs appending to one journal (local GitHub server)',
        '## A matrix fan-out: GitHub requests per node step',
        '## A for_each fan-out in waves: instances as matrix jobs',
        '## Runner minutes while a node waits for approval',
        '## Webhook deliveries per second (the app)',
        "## The App: answered within GitHub's window, missed deliveries, sealed logins",
        '## Added latency per CONNECT through the egress proxy',
        '## The key proxy: added latency per model request',
        "## The maintainers' page: waiting nodes across repositories",
      ])
        expect(page).toContain(section);
      expect(page).toContain('Quick mode');
      expect(page).not.toMatch(/NaN|Infinity|\| *undefined *\|/);
      // A later step on the git store: one read, two writes, one progress-comment update.
      expect(page).toMatch(/\| git store, a later step, no GitHub evidence check\s*\|\s*4\s*\|/);
      // Contention: no event lost and none dispatched twice, at each level run.
      const rows = page.split('\n').filter((l) => /^\| [24] +\| \d+ +\| /.test(l));
      expect(rows).toHaveLength(2);
      for (const row of rows)
        expect(
          row
            .split('|')
            .slice(3, 5)
            .map((c) => c.trim()),
        ).toEqual(['0', '0']);
      // The matrix fan-out: each size run loses no event and dispatches no node twice.
      const matrix = page.slice(page.indexOf('## A matrix fan-out'));
      const matrixRows = matrix
        .slice(0, matrix.indexOf('\n## ', 3))
        .split('\n')
        .filter((l) => /^\| [23] +\| \d+ \(/.test(l));
      expect(matrixRows).toHaveLength(2);
      for (const row of matrixRows) expect(row).toMatch(/\| 0 \/ 0 +\|/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 540_000);
});
