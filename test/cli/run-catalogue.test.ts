// One run catalogue per store (issue 45): every face of the CLI (`status` picking the one run, `usage`, `stuck`,
// `ui`, the daily cap's count of other runs) lists `.interlock/runs` through the file store's catalogue
// (store/file-runs.ts), which follows no link. A node may plant links there: one to a journal outside the folder
// (its spend would be counted, its run shown) and one that leads nowhere (the CLI's own listing stat'ed it and
// died with ENOENT on every one of these commands).
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningUi, startUi } from '../../src/cli/commands/ui.js';
import { cliConfig, cliDailyCap } from '../../src/cli/daily-cap.js';
import type { Io } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

const GOLDEN = new URL('../fixtures/journals/agents/', import.meta.url).pathname;

let dir: string;
let runs: string;
let ui: RunningUi | undefined;
let out = '';
let err = '';
const io = (): Io => ({
  out: (t) => {
    out += t;
  },
  err: (t) => {
    err += t;
  },
  cwd: dir,
  env: {},
});
const cli = async (...args: string[]) => {
  out = '';
  err = '';
  return main(args, io());
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'interlock-catalogue-'));
  runs = join(dir, '.interlock', 'runs');
  mkdirSync(runs, { recursive: true });
  mkdirSync(join(dir, '.github', 'interlock'), { recursive: true });
  copyFileSync(join(GOLDEN, 'graph.yml'), join(dir, '.github', 'interlock', 'agents.yml'));
  writeFileSync(join(dir, '.github', 'interlock.yml'), 'budget:\n  daily_usd: 5\n');
  const text = readFileSync(join(GOLDEN, 'journal.json'), 'utf8');
  writeFileSync(join(runs, 'agents.json'), text);
  // A journal outside the folder, linked into it, and a link that leads nowhere.
  mkdirSync(join(dir, 'outside'));
  writeFileSync(
    join(dir, 'outside', 'planted.json'),
    text.replaceAll('"run_id":"agents"', '"run_id":"planted"'),
  );
  symlinkSync(join(dir, 'outside', 'planted.json'), join(runs, 'planted.json'));
  symlinkSync(join(dir, 'nowhere', 'gone.json'), join(runs, 'gone.json'));
});
afterEach(async () => {
  await ui?.close();
  ui = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('every face of the CLI lists the runs folder one way: no link followed', () => {
  it('status picks the one run in the folder', async () => {
    expect(await cli('status'), err).toBe(0);
    expect(out).toContain('agents');
    expect(out + err).not.toContain('planted');
  });

  it('usage counts the one journal, stuck reads the one journal', async () => {
    expect(await cli('usage', '--days', '36500'), err).toBe(0);
    expect(out).toContain('usage of 1 journal(s) in .interlock/runs');
    expect(await cli('stuck', '--json', '--older-than', '1m'), err).toBe(0);
    expect(out).not.toContain('planted');
    expect(out).not.toContain('gone');
  });

  it("the daily cap counts the other runs in the folder, not a linked journal's spend", async () => {
    const cap = await cliDailyCap(io(), cliConfig(io()), join(runs, 'mine.json'), 'mine');
    const spend = await cap!.count('2026-12-01');
    expect(spend).toMatchObject({ counted: 1, of: 1, uncounted: [] });
    expect(spend.others.cost_usd).toBeGreaterThan(0);
    const alone = await cap!.count('2026-11-30');
    expect(alone.others.cost_usd).toBe(0);
  });

  it('interlock ui shows the one run and no problem', async () => {
    ui = await startUi(io(), { dir: runs, port: 0, by: 'alice' });
    const r = await fetch(ui.url);
    const html = await r.text();
    expect(r.status, html).toBe(200);
    expect(html).not.toContain('planted');
    expect(html).not.toContain('gone.json');
  });
});
