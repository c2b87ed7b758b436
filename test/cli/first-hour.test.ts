// A newcomer's first hour with the CLI in a repository of their own: the journal stays out of git without them
// doing anything, a check of the working tree sees only what the nodes changed, and every place where the CLI
// stops for a person (an ended run, an escalation, a hold, a gate, an approval) prints the command that goes on.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { freshRunId } from '../../src/cli/next-steps.js';

let dir: string;
const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'interlock-first-hour-'));
  git('init', '-q');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'init');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI in the repository; returns the exit code and what it printed. */
async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const { GIT_DIR: _, ...env } = process.env;
  const code = await main(argv, {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    cwd: dir,
    env,
  });
  return { code, out, err };
}

const graph = (nodes: string) => `interlock: 1\nname: hello\nnodes:\n${nodes}`;

describe('the journal stays out of git', () => {
  it('a first run makes .interlock/ with a .gitignore of *, so git status shows only what the nodes changed', async () => {
    writeFileSync(join(dir, 'hello.yml'), graph('  - id: write\n    run: echo hi > hello.txt\n'));
    git('add', 'hello.yml');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'graph');
    expect((await cli('run', 'hello.yml', '--all')).code).toBe(0);
    expect(readFileSync(join(dir, '.interlock/.gitignore'), 'utf8')).toMatch(/^\*$/m);
    expect(git('status', '--porcelain')).toBe('?? hello.txt\n');
    git('add', '-A');
    expect(git('diff', '--cached', '--name-only')).toBe('hello.txt\n');
  });

  it("the recipe's check that the agent changed something fails when it changed nothing", async () => {
    writeFileSync(
      join(dir, 'hello.yml'),
      graph(
        '  - id: implement\n    run: "true"\n    validates:\n      - command: test -n "$(git status --porcelain)"\n',
      ),
    );
    git('add', 'hello.yml');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'graph');
    const r = await cli('run', 'hello.yml', '--quiet');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/"implement" attempt 1 failed/);
  });

  it('leaves a .interlock/ folder that is already there as it is, and a journal elsewhere needs no folder', async () => {
    mkdirSync(join(dir, '.interlock'));
    writeFileSync(join(dir, 'hello.yml'), graph('  - id: a\n    run: "true"\n'));
    await cli('run', 'hello.yml', '--all');
    expect(() => readFileSync(join(dir, '.interlock/.gitignore'))).toThrow();
    rmSync(join(dir, '.interlock'), { recursive: true });
    await cli('run', 'hello.yml', '--all', '--journal', 'j.json');
    expect(() => readFileSync(join(dir, '.interlock/.gitignore'))).toThrow();
  });
});

describe('no dead end: where the CLI stops, it prints the next command', () => {
  it('running a run that has ended says it stays ended, and the command that starts a new run', async () => {
    writeFileSync(join(dir, 'hello.yml'), graph('  - id: a\n    run: "true"\n'));
    expect((await cli('run', 'hello.yml', '--all')).code).toBe(0);
    const again = await cli('run', 'hello.yml');
    expect(again.err).toContain('■ the run has ended (completed');
    expect(again.err).toContain('interlock run hello.yml --run-id hello-2');
    expect((await cli('run', 'hello.yml', '--run-id', 'hello-2', '--all')).code).toBe(0);
  });

  it('with a journal named by --journal, the command it prints names a new journal too, and works', async () => {
    writeFileSync(join(dir, 'hello.yml'), graph('  - id: a\n    run: "true"\n'));
    await cli('run', 'hello.yml', '--journal', 'j.json');
    const again = await cli('run', 'hello.yml', '--journal', 'j.json');
    const next = /^ {2}interlock (run .*)$/m.exec(again.err)?.[1];
    expect(next).toBe('run hello.yml --run-id hello-2 --journal j-hello-2.json');
    expect((await cli(...next!.split(' '))).code).toBe(0);
  });

  it('numbers fresh run ids on from the last', () => {
    expect(freshRunId('hello')).toBe('hello-2');
    expect(freshRunId('hello-2')).toBe('hello-3');
    expect(freshRunId('fix/issue-42')).toBe('fix/issue-42-2');
    expect(freshRunId('fix/issue-42-9')).toBe('fix/issue-42-10');
  });

  it('an escalation in run prints the commands status prints, and approve-rerun says to run the graph again', async () => {
    writeFileSync(join(dir, 'hello.yml'), graph('  - id: check\n    run: "false"\n'));
    const run = await cli('run', 'hello.yml', '--all', '--quiet');
    expect(run.code).toBe(3);
    expect(run.err).toContain('escalated: check');
    expect(run.err).toContain('interlock approve-rerun check --run-id hello');
    expect(run.err).toContain('interlock settle check --note "what you checked" --run-id hello');
    const status = await cli('status');
    expect(status.out).toContain('interlock approve-rerun check --run-id hello');

    const approved = await cli('approve-rerun', 'check', '--by', 'alice');
    expect(approved.out).toContain('alice approved a rerun of "check"; run is running');
    expect(approved.out).toContain(
      'next (nothing runs until you do): interlock run hello.yml --run-id hello --all',
    );
  });

  it('a gate in run prints the approve command, and the approval says to run the graph again', async () => {
    writeFileSync(join(dir, 'hello.yml'), graph('  - id: publish\n    approval: before\n    run: "true"\n'));
    const run = await cli('run', 'hello.yml', '--all', '--quiet');
    expect(run.code).toBe(3);
    expect(run.err).toContain('interlock approve publish --run-id hello');
    const approved = await cli('approve', 'publish', '--by', 'alice');
    expect(approved.out).toContain(
      'next (nothing runs until you do): interlock run hello.yml --run-id hello --all',
    );
    expect((await cli('run', 'hello.yml', '--all', '--quiet')).code).toBe(0);
  });

  it('failing the run prints no next run command (there is none to go on with)', async () => {
    writeFileSync(join(dir, 'hello.yml'), graph('  - id: check\n    run: "false"\n'));
    await cli('run', 'hello.yml', '--all', '--quiet');
    const failed = await cli('fail-run', '--by', 'alice', '--reason', 'wrong plan');
    expect(failed.out).not.toContain('next:');
  });
});
