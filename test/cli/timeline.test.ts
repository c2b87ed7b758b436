// `interlock status --timeline` and `--svg FILE` (issue 38): the CLI draws the golden journal's timeline as the
// renderers' golden files have it, fitted to the width asked for, and writes the SVG where it is told.
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

const fixtures = new URL('../fixtures/', import.meta.url).pathname;

function workspace(name: string) {
  const dir = mkdtempSync(join(tmpdir(), 'interlock-timeline-'));
  copyFileSync(join(fixtures, 'journals', name, 'journal.json'), join(dir, 'journal.json'));
  copyFileSync(join(fixtures, 'journals', name, 'graph.yml'), join(dir, 'graph.yml'));
  return dir;
}

async function cli(dir: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  let out = '';
  let err = '';
  const code = await main(['status', '--journal', 'journal.json', '--graph', 'graph.yml', ...args], {
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

describe('interlock status --timeline and --svg', () => {
  it('--timeline draws the run at --width, else at $COLUMNS, else at 80 columns', async () => {
    const dir = workspace('gate');
    const golden = (w: number) => readFileSync(join(fixtures, 'timelines', 'gate', `text-${w}.txt`), 'utf8');
    expect(await cli(dir, ['--timeline', '--width', '120'])).toMatchObject({ code: 0, out: golden(120) });
    expect(await cli(dir, ['--timeline'], { COLUMNS: '120' })).toMatchObject({ code: 0, out: golden(120) });
    expect(await cli(dir, ['--timeline'])).toMatchObject({ code: 0, out: golden(80) });
  });

  it('--svg FILE writes the picture; a bad width is refused with the fix', async () => {
    const dir = workspace('cli');
    const r = await cli(dir, ['--svg', 'run.svg']);
    expect(r).toMatchObject({
      code: 0,
      out: '',
      err: 'interlock: wrote the timeline of golden to run.svg\n',
    });
    expect(readFileSync(join(dir, 'run.svg'), 'utf8')).toBe(
      readFileSync(join(fixtures, 'timelines', 'cli', 'timeline.svg'), 'utf8'),
    );
    const bad = await cli(dir, ['--timeline', '--width', '12']);
    expect(bad.code).toBe(2);
    expect(bad.err).toBe('interlock: --width 12: give a whole number of columns from 40 to 1000\n');
  });
});
