// `npm run bench` in its quick mode (small sizes, one run each): every benchmark runs and the page it writes has
// every section, no event lost and no node dispatched twice at any size. Not part of `npm test` (it runs the whole
// benchmark suite, minutes of it); the nightly reliability workflow runs it (`npm run bench:check`). The figures
// themselves come from the full run (docs/BENCHMARKS.md).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'interlock-bench-'));
try {
  const out = join(dir, 'BENCHMARKS.md');
  const r = spawnSync('npm', ['run', 'bench', '--silent'], {
    cwd: ROOT,
    env: { ...process.env, BENCH_QUICK: '1', BENCH_OUT: out },
    encoding: 'utf8',
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  assert.equal(r.status, 0, r.stderr);
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
    "## The App: deliveries one process answers within GitHub's 10 s",
    "## The App's memory: repositories × runs × page sessions",
    '## Added latency per CONNECT through the egress proxy',
    '## The key proxy: added latency per model request',
    "## The maintainers' page: waiting nodes across repositories",
  ])
    assert.ok(page.includes(section), `the page has no section "${section}"`);
  assert.ok(page.includes('Quick mode'), 'the page does not say it is quick mode');
  assert.doesNotMatch(page, /NaN|Infinity|\| *undefined *\|/);
  // A later step on the git store: one read, two writes, one progress-comment update.
  assert.match(page, /\| git store, a later step, no GitHub evidence check\s*\|\s*4\s*\|/);
  // Contention: no event lost and none dispatched twice, at each level run.
  const rows = page.split('\n').filter((l) => /^\| [24] +\| \d+ +\| /.test(l));
  assert.equal(rows.length, 2, 'contention rows');
  for (const row of rows)
    assert.deepEqual(
      row
        .split('|')
        .slice(3, 5)
        .map((c) => c.trim()),
      ['0', '0'],
      row,
    );
  // The matrix fan-out: each size run loses no event and dispatches no node twice.
  const matrix = page.slice(page.indexOf('## A matrix fan-out'));
  const matrixRows = matrix
    .slice(0, matrix.indexOf('\n## ', 3))
    .split('\n')
    .filter((l) => /^\| [23] +\| \d+ \(/.test(l));
  assert.equal(matrixRows.length, 2, 'matrix rows');
  for (const row of matrixRows) assert.match(row, /\| 0 \/ 0 +\|/);
  // Each section that runs alone, by its name: it replaces its own section of the page, and says so.
  for (const name of ['app-load', 'app-memory']) {
    const alone = spawnSync('npm', ['run', 'bench', '--silent', '--', name], {
      cwd: ROOT,
      env: { ...process.env, BENCH_QUICK: '1', BENCH_OUT: out },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    assert.equal(alone.status, 0, alone.stderr);
    assert.match(alone.stdout, /Measured alone on .* at a load average of/);
  }
  assert.equal(
    readFileSync(out, 'utf8').match(/Measured alone on /g)?.length,
    2,
    'each alone section replaced once',
  );
  // The page's memory figures: every person saw every run.
  const memory = readFileSync(out, 'utf8').split("## The App's memory")[1]!.split('\n## ')[0]!;
  const memoryRows = memory.split('\n').filter((l) => /^\| \d+ +\| \d+ +\| \d+ +\|/.test(l));
  assert.equal(memoryRows.length, 2, 'memory rows');
  for (const row of memoryRows) {
    const cells = row.split('|').map((c) => c.trim());
    assert.equal(cells[11], cells[2], `every run is a row on the page: ${row}`);
  }
  console.log(`npm run bench (quick mode): every section written, nothing lost or doubled (${out})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
