// Issue 45: a refused command changes nothing, and a graph changed under an escalated node has one way on, printed
// by the refusal itself. Through the CLI a user runs (dist/cli.js, `npm run build` first), in a git repository of
// its own: the five lines of the issue (a node writes wrong.txt and checks right.txt; run --all; fix the graph;
// approve-rerun; status), every verb refused under the changed graph with the journal's bytes unchanged, and the
// journal the release before the fix left behind (test/fixtures/released-journals/graph-path, an absolute graph
// path in its header) read by every verb, by `interlock ui`, and refused in one line once its graph is gone.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningUi, startUi } from '../../src/cli/commands/ui.js';

const CLI = new URL('../../dist/cli.js', import.meta.url).pathname;
const FIXTURE = new URL('../fixtures/released-journals/graph-path/', import.meta.url).pathname;
const GRAPH = '.github/interlock/g.yml';
const JOURNAL = '.interlock/runs/g.json';

let dir: string;
let ui: RunningUi | undefined;
const { GIT_DIR: _, ...env } = process.env;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'interlock-graph-change-'));
  execFileSync('git', ['init', '-q'], { cwd: dir });
  mkdirSync(join(dir, '.github/interlock'), { recursive: true });
});
afterEach(async () => {
  await ui?.close();
  ui = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** The CLI as a user runs it; `words` is what follows `interlock`. */
function cli(...words: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...words], {
    cwd: dir,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

/** A printed command (`interlock approve-rerun a …`), run as the person would paste it: by a shell. */
function paste(command: string): { code: number; out: string; err: string } {
  const r = spawnSync('sh', ['-c', command.replace(/^interlock /, `"${process.execPath}" "${CLI}" `)], {
    cwd: dir,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

const journalBytes = () => readFileSync(join(dir, JOURNAL));
const header = () =>
  (JSON.parse(readFileSync(join(dir, JOURNAL), 'utf8')) as { graph: { path: string } }).graph;

/** A refusal is one line on stderr that names what to do, with no stack trace, and exit 2. */
function expectOneLineRefusal(r: { code: number; out: string; err: string }, fix: string | RegExp): void {
  expect(r.code, r.err).toBe(2);
  expect(r.err).not.toMatch(/unexpected error|\n\s+at /);
  const lines = r.err.trimEnd().split('\n');
  expect(lines.filter((l) => !l.startsWith('interlock: acting as'))).toHaveLength(1);
  expect(r.err).toMatch(fix);
}

const graphFile = (cmd: string) =>
  `interlock: 1\nname: g\nnodes:\n  - id: a\n    run: ${cmd}\n    validates:\n      - file: right.txt\n`;

// The five lines of issue 45, and every verb refused under the changed graph.
describe('a refused command changes nothing, and under a changed graph it prints the way on', () => {
  // About twenty runs of the bundled CLI: generous on a loaded machine.
  it('a refused command writes nothing; the refusal prints the command that goes on; status stays readable', {
    timeout: 120_000,
  }, () => {
    writeFileSync(join(dir, GRAPH), graphFile('touch wrong.txt'));
    expect(cli('run', GRAPH, '--all', '--by', 'alice').code).toBe(3);
    writeFileSync(join(dir, GRAPH), graphFile('touch right.txt'));
    const before = journalBytes();

    // Every verb that writes, given under the changed graph without leave: refused, nothing written, and the
    // refusal prints the same command with --allow-graph-change.
    const refused: string[][] = [
      ['approve-rerun', 'a', '--by', 'alice'],
      ['settle', 'a', '--note', 'checked it', '--by', 'alice'],
      ['fail-run', '--reason', 'no', '--by', 'alice'],
      ['rerun-from', 'a', '--by', 'alice'],
      ['run', GRAPH, '--all'],
      ['recover', '--by', 'alice'],
    ];
    const docs = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    for (const words of refused) {
      const r = cli(...words);
      // docs/cli.md shows the first of them as the CLI prints it.
      if (words[0] === 'approve-rerun')
        expect(docs).toContain(`$ interlock approve-rerun a --by alice\n${r.err}`);
      expectOneLineRefusal(r, 'the graph changed since the run started');
      const typed = words.map((w) => (w.includes(' ') ? `'${w}'` : w)).join(' ');
      expect(r.err, typed).toContain(`interlock ${typed} --allow-graph-change`);
      expect(journalBytes().equals(before), words.join(' ')).toBe(true);
    }
    // Refused with leave to change the graph (the release before the fix wrote GraphChangeAllowed here, and an
    // absolute graph path): still nothing written.
    for (const words of [
      ['approve', 'a', '--by', 'alice', '--allow-graph-change'],
      ['approve-rerun', 'nope', '--by', 'alice', '--allow-graph-change'],
    ]) {
      const r = cli(...words);
      expect(r.code, words.join(' ')).toBe(2);
      expect(r.err).not.toMatch(/unexpected error|\n\s+at /);
      expect(journalBytes().equals(before), words.join(' ')).toBe(true);
    }

    // status reads the run and offers the same way on.
    const status = cli('status');
    expect(status.code).toBe(0);
    expect(status.out).toContain('interlock approve-rerun a --run-id g --allow-graph-change');

    // The way the refusal printed, pasted as it is, records the change and the approval in one write.
    const printed = /(interlock approve-rerun a .*--allow-graph-change)$/m.exec(
      cli('approve-rerun', 'a').err,
    )?.[1];
    expect(printed).toBe('interlock approve-rerun a --allow-graph-change');
    const approved = paste(`${printed} --by alice`);
    expect(approved.code, approved.err).toBe(0);
    expect(docs).toContain(`$ interlock approve-rerun a --by alice --allow-graph-change\n${approved.out}`);
    expect(header().path).toBe(GRAPH);
    const types = (JSON.parse(journalBytes().toString()) as { events: { type: string }[] }).events.map(
      (e) => e.type,
    );
    expect(types.slice(-2)).toEqual(['GraphChangeAllowed', 'RerunApproved']);

    const after = cli('status');
    expect(after.code, after.err).toBe(0);
    expect(after.err).toBe('');
    const next = /(interlock run \S+ --run-id g --all)/.exec(after.out)?.[1];
    expect(next).toBe(`interlock run ${GRAPH} --run-id g --all`);
    expect(paste(next!).code).toBe(0);
    expect(cli('status', '--json').out).toContain('"status": "completed"');
  });

  it('a graph given from outside the repository is refused in one line and starts no run', () => {
    const outside = mkdtempSync(join(tmpdir(), 'interlock-outside-'));
    try {
      writeFileSync(join(outside, 'g.yml'), graphFile('touch right.txt'));
      expectOneLineRefusal(cli('run', join(outside, 'g.yml'), '--all'), /outside the repository/);
      expect(() => journalBytes()).toThrow(/ENOENT/);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

// The journal the release before the fix wrote (test/fixtures/released-journals/graph-path).
describe('a journal names its graph relative to the repository, and an old absolute path is read', () => {
  beforeEach(() => {
    mkdirSync(join(dir, '.interlock/runs'), { recursive: true });
    copyFileSync(join(FIXTURE, 'graph.yml'), join(dir, GRAPH));
    copyFileSync(join(FIXTURE, 'journal.json'), join(dir, JOURNAL));
    expect(header().path).toMatch(/^\/tmp\/.*\/\.github\/interlock\/g\.yml$/);
  });

  it('every verb reads it, and the next write names the graph relative to the repository', () => {
    const before = journalBytes();
    for (const words of [['status'], ['status', '--timeline'], ['status', '--json'], ['recover']]) {
      const r = cli(...words);
      expect(r.code, `${words.join(' ')}: ${r.err}`).toBe(0);
      expect(r.err).not.toMatch(/unexpected error|PathRefused|\n\s+at /);
    }
    expect(cli('status').out).toContain('interlock approve-rerun a --run-id g     # run it again');
    expect(journalBytes().equals(before)).toBe(true);
    const r = cli('approve-rerun', 'a', '--by', 'bob');
    expect(r.code, r.err).toBe(0);
    expect(header().path).toBe(GRAPH);
    expect(r.out).toContain(`interlock run ${GRAPH} --run-id g --all`);
  });

  it('interlock ui lists its escalated node', async () => {
    ui = await startUi(
      { out: () => {}, err: () => {}, cwd: dir, env },
      { dir: join(dir, '.interlock/runs'), port: 0, by: 'alice' },
    );
    const html = await (await fetch(ui.url)).text();
    expect(html).toContain('Waiting for people (1)');
    // The command that runs it once approved names the graph as the run started with it, not the old absolute path.
    expect(html).toContain(`interlock run ${GRAPH} --run-id g --all`);
  });

  it('with its graph gone: one line naming --graph FILE; the ui still says what waits; --graph reads it', async () => {
    renameSync(join(dir, GRAPH), join(dir, '.github/interlock/moved.yml'));
    const before = journalBytes();
    for (const words of [['status'], ['recover'], ['approve-rerun', 'a', '--by', 'bob']])
      expectOneLineRefusal(
        cli(...words),
        /names its graph \.github\/interlock\/g\.yml, which is not there: .*--graph FILE/,
      );
    expect(journalBytes().equals(before)).toBe(true);
    ui = await startUi(
      { out: () => {}, err: () => {}, cwd: dir, env },
      { dir: join(dir, '.interlock/runs'), port: 0, by: 'alice' },
    );
    const html = await (await fetch(ui.url)).text();
    expect(html).toContain('waits for a person: a (escalated)');
    expect(html).toContain('--graph FILE');
    const r = cli('status', '--graph', '.github/interlock/moved.yml');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('escalated: a');
  });
});
