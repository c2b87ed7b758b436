// Following only what interlock prints: from the first `run`, each next command is the one the CLI printed,
// parsed and run as printed, until the run ends. A stop that prints no command, a command that does not carry
// the run on, or a comment form (`/approve`) in a terminal fails the walk.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

const ROOT = join(import.meta.dirname, '../..');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'interlock-printed-'));
  execFileSync('git', ['init', '-q'], { cwd: dir });
  execFileSync('git', ['config', 'user.name', 'Ann Walker'], { cwd: dir });
  writeFileSync(join(dir, 'README.md'), '# mine\n');
  execFileSync('git', ['add', 'README.md'], { cwd: dir });
  mkdirSync(join(dir, '.github/interlock'), { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function cli(argv: string[]): Promise<{ code: number; text: string }> {
  let text = '';
  const { GIT_DIR: _, USER: __, ...env } = process.env;
  const code = await main(argv, {
    out: (t) => {
      text += t;
    },
    err: (t) => {
      text += t;
    },
    cwd: dir,
    env,
  });
  return { code, text };
}

/** Words of a command line as a shell splits them: quotes group and are removed. */
function words(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** The first command the CLI printed for a person to type (`interlock …`, after `next:` or indented), as argv. */
function printedCommand(text: string): string[] | undefined {
  for (const line of text.split('\n')) {
    const m = /^(?:\s+|next[^:]*: )interlock (.+?)(?:\s+#.*)?$/.exec(line);
    if (m) return words(m[1]!);
  }
  return undefined;
}

const status = () =>
  (JSON.parse(readFileSync(join(dir, '.interlock/runs', `${runId}.json`), 'utf8')) as { events: unknown[] })
    .events.length;
let runId = '';

/** Runs `first`, then only what was printed, until the run ends; returns the verbs given, in order. */
async function walk(
  first: string[],
  opts: { viaStatus?: boolean; journal?: string } = {},
): Promise<string[]> {
  const given: string[] = [];
  const named = opts.journal ? ['--journal', opts.journal] : ['--run-id', runId];
  let argv: string[] | undefined = first;
  for (let i = 0; argv && i < 12; i++) {
    given.push(argv.join(' '));
    const { text } = await cli(argv);
    expect(text, `after "interlock ${argv.join(' ')}"`).not.toMatch(/(^|\s)\/(approve|settle|fail-run)\b/m);
    const state = JSON.parse((await cli(['status', '--json', ...named])).text) as {
      ended?: unknown;
    };
    if (state.ended) return given;
    // A person who looks at `status` instead gets the command that goes on from there too.
    argv = printedCommand(opts.viaStatus ? (await cli(['status', ...named])).text : text);
    expect(
      argv,
      `"interlock ${given.at(-1)}" stopped a running run and printed no command:\n${text}`,
    ).toBeDefined();
  }
  throw new Error(
    `the run did not end after ${given.length} commands: ${given.join(' | ')} (${status()} events)`,
  );
}

const CHAIN = `interlock: 1
name: chain
nodes:
  - id: a
    run: echo a > a.out
    validates:
      - file: a.out
  - id: b
    depends_on: [a]
    approval: before
    run: echo b > b.out
  - id: c
    depends_on: [b]
    run: echo c > c.out
    validates:
      - file: c.out
`;

describe('every stop prints the command that carries the run on', () => {
  it("the README's quick start, from its first run to the end, by what was printed", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const graph = /```yaml\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('<!-- quick-start-graph')))![1]!;
    const commands = /```sh\n([\s\S]*?)```/.exec(
      readme.slice(readme.indexOf('<!-- quick-start-commands')),
    )![1]!;
    const firstRun = commands.split('\n').find((l) => l.startsWith('interlock run '))!;
    writeFileSync(join(dir, '.github/interlock/hello.yml'), graph);
    runId = 'hello';
    const given = await walk(words(firstRun.replace(/\s+#.*$/, '')).slice(1));
    expect(given.map((g) => g.split(' ')[0])).toEqual(['run', 'approve', 'run']);
    expect(readFileSync(join(dir, 'report.txt'), 'utf8')).toBe('1 files\n');
  });

  it('a three-node chain started one node at a time: each printed command goes on until the run completes', async () => {
    writeFileSync(join(dir, 'chain.yml'), CHAIN);
    runId = 'chain';
    const given = await walk(['run', 'chain.yml']);
    expect(given).toEqual([
      'run chain.yml',
      'run chain.yml --run-id chain',
      'approve b --run-id chain',
      'run chain.yml --run-id chain --all',
    ]);
    expect(readFileSync(join(dir, 'c.out'), 'utf8')).toBe('c\n');
  });

  it('a three-node chain followed through `status` alone, as a person who looks before acting', async () => {
    writeFileSync(join(dir, 'chain.yml'), CHAIN);
    runId = 'chain';
    const given = await walk(['run', 'chain.yml', '--all'], { viaStatus: true });
    expect(given).toEqual([
      'run chain.yml --all',
      'approve b --run-id chain',
      'run chain.yml --run-id chain --all',
    ]);
  });

  it('a run kept in a journal named by --journal: every printed command names that journal, not the run id', async () => {
    writeFileSync(join(dir, 'chain.yml'), CHAIN);
    mkdirSync(join(dir, 'my runs'));
    runId = 'chain';
    const journal = 'my runs/chain.json';
    const given = await walk(['run', 'chain.yml', '--journal', journal], { journal });
    expect(given).toEqual([
      `run chain.yml --journal ${journal}`,
      `run chain.yml --journal ${journal}`,
      `approve b --journal ${journal}`,
      `run chain.yml --journal ${journal} --all`,
    ]);
    expect(readFileSync(join(dir, 'c.out'), 'utf8')).toBe('c\n');
    // And through `status`, where a person who looks first finds the same.
    rmSync(join(dir, 'my runs'), { recursive: true });
    mkdirSync(join(dir, 'my runs'));
    expect(
      await walk(['run', 'chain.yml', '--all', '--journal', journal], { viaStatus: true, journal }),
    ).toEqual([
      `run chain.yml --all --journal ${journal}`,
      `approve b --journal ${journal}`,
      `run chain.yml --journal ${journal} --all`,
    ]);
  });

  it('an approval names who approved when --by is not given: git user.name, said on stderr', async () => {
    writeFileSync(join(dir, 'chain.yml'), CHAIN);
    await cli(['run', 'chain.yml', '--all']);
    const r = await cli(['approve', 'b']);
    expect(r.text).toContain(
      'interlock: acting as "Ann Walker" (git config user.name; --by NAME names someone else)',
    );
    expect(r.text).toContain('Ann Walker approved "b"');
  });
});

describe('an effect node under the CLI', () => {
  it('is refused before its dispatch: no attempt spent, and status says it runs in the Action', async () => {
    writeFileSync(
      join(dir, 'ship.yml'),
      `interlock: 1\nname: ship\nnodes:\n  - id: build\n    run: echo ok > ok.txt\n  - id: comment\n    depends_on: [build]\n    effect:\n      comment: { body: done }\n`,
    );
    const run = await cli(['run', 'ship.yml', '--all']);
    expect(run.code).toBe(3);
    expect(run.text).toContain('"comment" is an effect');
    expect(run.text).toContain('it was not dispatched (no attempt spent)');
    const journal = JSON.parse(readFileSync(join(dir, '.interlock/runs/ship.json'), 'utf8')) as {
      events: { type: string; node?: string }[];
    };
    expect(journal.events.filter((e) => e.node === 'comment')).toEqual([]);
    const status = await cli(['status']);
    expect(status.text).toMatch(/^comment +ready +0 /m);
    expect(status.text).toContain('ready: comment is an effect: it runs in the Action, not the CLI');
    expect(status.text).not.toContain('interlock run ship.yml');
  });
});
