/**
 * Races with real processes: many writers on one journal at once, on each store. The file store through the
 * bundled CLI (its lock and compare-and-swap), the git store through the bundled Action against the local
 * GitHub (the blob sha as compare-and-swap). Nothing may be lost, no node dispatched twice, and the retries
 * each store needed are counted from outside: a preloaded counter for the CLI, the server's request log for
 * the Action.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseGraph } from '../../src/graph/load/load.js';
import type { Journal } from '../../src/journal/events/events.js';
import { fold } from '../../src/journal/fold.js';
import { parseJournal } from '../../src/journal/parse.js';
import { CLI } from '../crash/harness.js';
import { type StepResult, startStep, worldLog } from '../support/action-process.js';
import type { LikeGitHubOptions } from '../support/github-server.js';
import { startActionWorld, workspace } from './github-world.js';
import { killTagged, Problems, percentiles } from './support.js';

const COUNTER = fileURLToPath(new URL('./race-counter.mjs', import.meta.url));
const CONTENTS_PUT = 'PUT /repos/{owner}/{repo}/contents/{path}';
const CONTENTS_GET = 'GET /repos/{owner}/{repo}/contents/{path}';

export interface RaceResult {
  store: 'file' | 'git';
  face: string;
  writers: number;
  nodes: number;
  events: number;
  /** Nodes dispatched more than once. */
  doubleDispatched: number;
  /** Acknowledged events (or node side effects) missing from the journal. */
  lost: number;
  /** Successful journal writes. */
  writes: number;
  /** Compare-and-swap conflicts: writes refused because the journal had moved on (re-read and re-decided). */
  conflicts: number;
  /** Times a writer found the file lock taken and waited (file store only). */
  lockWaits: number;
  /** Journal reads (git store only: GET contents). */
  reads: number;
  /** Writers that exited with an error. */
  failedWriters: number;
  /** The most conflicts one writer met (file store: counted per process). */
  maxConflictsPerWriter?: number;
  ms: number;
  problems: string[];
}

/** N independent nodes, each appending its id once to a shared file, and a join after them all. */
export function raceGraph(name: string, n: number): string {
  const ids = Array.from({ length: n }, (_, i) => `w${i + 1}`);
  return `interlock: 1
name: ${name}
nodes:
${ids.map((id) => `  - id: ${id}\n    replay: never\n    run: echo "$INTERLOCK_NODE $INTERLOCK_ATTEMPT" >> "$SHARED"\n`).join('')}  - id: join
    depends_on: [${ids.join(', ')}]
    run: echo "join $INTERLOCK_ATTEMPT" >> "$SHARED"
`;
}

/** The invariants every race must keep; returns what the journal holds. */
export function checkRace(
  p: Problems,
  text: string | undefined,
  graphTextValue: string,
  nodes: string[],
  effects: string[],
): { journal?: Journal; doubleDispatched: number; lost: number } {
  if (!p.check(text !== undefined, 'no journal was written'))
    return { doubleDispatched: 0, lost: nodes.length };
  let journal: Journal;
  try {
    journal = parseJournal(text!, 'journal');
    fold(journal, parseGraph({ path: 'g.yml', text: graphTextValue }));
  } catch (e) {
    p.add(`the journal does not parse or fold: ${(e as Error).message}`);
    return { doubleDispatched: 0, lost: nodes.length };
  }
  p.check(
    journal.events.every((e, i) => e.seq === i + 1),
    'sequence numbers are not 1..n',
  );
  const count = (type: string, node: string) =>
    journal.events.filter((e) => e.type === type && 'node' in e && e.node === node).length;
  let doubleDispatched = 0;
  let lost = 0;
  for (const n of nodes) {
    const d = count('NodeDispatched', n);
    if (d > 1) doubleDispatched++;
    if (count('NodeRecorded', n) !== 1) lost++;
    p.check(d === 1, `node ${n} dispatched ${d} times`);
    const ran = effects.filter((l) => l === `${n} 1`).length;
    p.check(ran === 1, `node ${n} ran ${ran} times`);
  }
  p.check(effects.length === nodes.length, `${effects.length} side effects for ${nodes.length} nodes`);
  p.check(
    journal.events.filter((e) => e.type === 'RunStarted').length === 1,
    'RunStarted is not written once',
  );
  p.check(
    journal.events.filter((e) => e.type === 'RunCompleted').length === 1,
    'RunCompleted is not written once',
  );
  p.check(
    journal.events.filter((e) => e.type === 'NodeInterrupted').length === 0,
    'a live writer’s attempt was taken for interrupted',
  );
  p.check(lost === 0, `${lost} node(s) lack their NodeRecorded`);
  return { journal, doubleDispatched, lost };
}

/** `writers` CLI processes run `run --all` on one file journal at once. */
export async function fileStoreRace(writers: number, nodes = writers): Promise<RaceResult> {
  const dir = mkdtempSync(join(tmpdir(), 'interlock-race-file-'));
  const tag = randomUUID();
  const p = new Problems();
  const graph = raceGraph('race', nodes);
  writeFileSync(join(dir, 'g.yml'), graph);
  const countsFile = join(dir, 'counts.jsonl');
  const t0 = Date.now();
  try {
    const exits = await Promise.all(
      Array.from(
        { length: writers },
        () =>
          new Promise<{ code: number | null; stderr: string }>((resolve) => {
            const child = spawn(
              process.execPath,
              ['--import', COUNTER, CLI, 'run', 'g.yml', '--all', '--quiet'],
              {
                cwd: dir,
                env: {
                  PATH: process.env.PATH,
                  HOME: process.env.HOME,
                  TMPDIR: dir,
                  INTERLOCK_TEST_TAG: tag,
                  INTERLOCK_RACE_COUNTS: countsFile,
                  SHARED: join(dir, 'shared.txt'),
                },
                stdio: ['ignore', 'ignore', 'pipe'],
              },
            );
            let stderr = '';
            child.stderr.on('data', (c: Buffer) => {
              stderr += c.toString('utf8');
            });
            child.on('close', (code) => resolve({ code, stderr }));
          }),
      ),
    );
    const ms = Date.now() - t0;
    const failed = exits.filter((e) => e.code !== 0 && e.code !== 3);
    for (const f of failed)
      p.add(`a writer exited ${f.code}: ${f.stderr.trim().split('\n').slice(-2).join(' | ')}`);
    const file = join(dir, '.interlock/runs/race.json');
    const text = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    const effects = existsSync(join(dir, 'shared.txt'))
      ? readFileSync(join(dir, 'shared.txt'), 'utf8').split('\n').filter(Boolean)
      : [];
    const ids = [...Array.from({ length: nodes }, (_, i) => `w${i + 1}`), 'join'];
    const c = checkRace(p, text, graph, ids, effects);
    const leftovers = readdirSync(join(dir, '.interlock/runs')).filter(
      (f) => f !== 'race.json' && f !== 'race.logs',
    );
    p.check(leftovers.length === 0, `files left beside the journal: ${leftovers.join(', ')}`);
    const counts = readFileSync(countsFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { lockWaits: number; locksTaken: number; writes: number });
    p.check(counts.length === writers, `${counts.length} of ${writers} writers reported their counts`);
    // Every event reached the file through a journal write: a count of none means the counter saw nothing.
    p.check(
      counts.some((x) => x.writes > 0 && x.locksTaken > 0),
      'no writer counted a lock or a journal write: the counter is not seeing the CLI',
    );
    const conflicts = counts.map((x) => x.locksTaken - x.writes);
    return {
      store: 'file',
      face: 'CLI (dist/cli.js)',
      writers,
      nodes: ids.length,
      events: c.journal?.events.length ?? 0,
      doubleDispatched: c.doubleDispatched,
      lost: c.lost,
      writes: counts.reduce((a, x) => a + x.writes, 0),
      conflicts: conflicts.reduce((a, x) => a + x, 0),
      lockWaits: counts.reduce((a, x) => a + x.lockWaits, 0),
      reads: 0,
      failedWriters: failed.length,
      maxConflictsPerWriter: percentiles(conflicts).max,
      ms,
      problems: p.list,
    };
  } finally {
    await killTagged(tag);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `writers` Action steps (`node: all`), each a job of its own, run on one git journal at once; `likeGitHub` is the
 * local GitHub's model (default the world's: GITHUB_CLOCK, test/support/clock.ts).
 */
export async function gitStoreRace(
  writers: number,
  nodes = writers,
  likeGitHub?: LikeGitHubOptions,
): Promise<RaceResult> {
  const graph = raceGraph('race', nodes);
  const path = '.github/interlock/race.yml';
  // Each writer acts as a bot of its own, so the request log tells whose writes conflicted.
  const tokens = Object.fromEntries(
    Array.from({ length: writers }, (_, i) => [`ghs_writer_${i}`, `writer-${i}[bot]`]),
  );
  const world = await startActionWorld({
    files: { [path]: graph },
    tokens,
    ...(likeGitHub ? { likeGitHub } : {}),
  });
  const root = mkdtempSync(join(tmpdir(), 'interlock-race-git-'));
  const tag = randomUUID();
  const p = new Problems();
  try {
    const issue = world.issue('race');
    // Each writer is a job with a checkout of its own, as on GitHub; the nodes' side effects land outside them.
    const log = worldLog();
    const mark = world.server.requests.mark();
    const t0 = Date.now();
    const steps: StepResult[] = await Promise.all(
      Array.from(
        { length: writers },
        (_, i) =>
          startStep({
            ...world.step(workspace(root, { [path]: graph }), issue, {
              inputs: { graph: path, node: 'all' },
              env: { INTERLOCK_TEST_TAG: tag, TMPDIR: root, SHARED: log },
            }),
            token: `ghs_writer_${i}`,
          }).done,
      ),
    );
    const ms = Date.now() - t0;
    const failed = steps.filter((r) => r.code !== 0);
    for (const f of failed)
      p.add(
        `a step exited ${f.code}: ${f.stdout
          .split('\n')
          .filter((l) => l.startsWith('::error'))
          .join(' | ')}`,
      );
    const text = world.journalText(`race/issue-${issue}`);
    const effects = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
    const ids = [...Array.from({ length: nodes }, (_, i) => `w${i + 1}`), 'join'];
    const c = checkRace(p, text, graph, ids, effects);
    const progress = world.repo.commentsOn(issue).filter((m) => m.body.includes('<!-- interlock:progress'));
    p.check(progress.length === 1, `${progress.length} progress comments on the issue`);
    const puts = world.server.requests.filter({ since: mark, kind: CONTENTS_PUT });
    const refused = puts.filter((r) => r.status === 409 || r.status === 422);
    const perWriter = Object.keys(tokens).map(
      (_, i) => refused.filter((r) => r.actor === `writer-${i}[bot]`).length,
    );
    p.check(
      perWriter.reduce((a, n) => a + n, 0) === refused.length,
      'some conflicts were not made by a writer of this race',
    );
    return {
      store: 'git',
      face: 'Action (dist/index.js)',
      writers,
      nodes: ids.length,
      events: c.journal?.events.length ?? 0,
      doubleDispatched: c.doubleDispatched,
      lost: c.lost,
      writes: puts.filter((r) => r.status === 200 || r.status === 201).length,
      conflicts: refused.length,
      lockWaits: 0,
      reads: world.server.requests.count({ since: mark, kind: CONTENTS_GET }),
      failedWriters: failed.length,
      maxConflictsPerWriter: percentiles(perWriter).max,
      ms,
      problems: p.list,
    };
  } finally {
    await killTagged(tag);
    await world.close();
    rmSync(root, { recursive: true, force: true });
  }
}
