// Cost over days (issue 38): the per-day sums of the golden journals agree with their checkpoints' usage, and
// `interlock usage` reports them per day, per graph and per node with a sparkline, naming what it could not read.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { dailyUsage } from '../../src/journal/daily-usage.js';
import { parseJournal } from '../../src/journal/parse.js';
import { sparkline } from '../../src/render/usage/days.js';

const dir = new URL('../fixtures/journals/', import.meta.url).pathname;
const GOLDENS = ['agents', 'cli', 'gate', 'serialized', 'sessions', 'soft'];
const journal = (n: string) => parseJournal(readFileSync(join(dir, n, 'journal.json'), 'utf8'), n);

describe('dailyUsage: tokens, cost and runs per day', () => {
  for (const name of GOLDENS) {
    it(`${name}: the days add up to the checkpoint's usage`, () => {
      const cp = JSON.parse(readFileSync(join(dir, name, 'checkpoint.json'), 'utf8')) as {
        usage: { input_tokens?: number; output_tokens?: number; cost_usd?: number; turns?: number };
      };
      const days = dailyUsage([journal(name)]);
      const total = (k: 'input_tokens' | 'output_tokens' | 'cost_usd' | 'turns' | 'runs') =>
        days.reduce((s, d) => s + d.total[k], 0);
      expect(total('runs')).toBe(1);
      expect(total('input_tokens')).toBe(cp.usage.input_tokens ?? 0);
      expect(total('output_tokens')).toBe(cp.usage.output_tokens ?? 0);
      expect(total('cost_usd')).toBeCloseTo(cp.usage.cost_usd ?? 0, 9);
      expect(total('turns')).toBe(cp.usage.turns ?? 0);
    });
  }

  it('sparkline scales to the largest value', () => {
    expect(sparkline([0, 1, 2, 4])).toBe('▁▃▅█');
    expect(sparkline([0, 0])).toBe('▁▁');
  });
});

describe('interlock usage', () => {
  it('reports the journals of a folder per day, per graph and per node; says what it could not read', async () => {
    const runs = mkdtempSync(join(tmpdir(), 'interlock-usage-'));
    for (const name of GOLDENS) {
      mkdirSync(join(runs, name));
      copyFileSync(join(dir, name, 'journal.json'), join(runs, name, 'run.json'));
    }
    writeFileSync(join(runs, 'broken.json'), '{"format":');
    writeFileSync(join(runs, 'agents', 'run.live.json'), '{}');
    let out = '';
    const code = await main(['usage', '--dir', runs, '--days', '36500'], {
      out: (t) => {
        out += t;
      },
      err: () => {},
      cwd: runs,
      env: {},
    });
    expect(code).toBe(0);
    expect(out).toContain(`usage of 6 journal(s) in ${runs}, the last 36500 day(s) (UTC)`);
    expect(out).toMatch(/^all\s+6\s+21\s+4,280\s+12\s+\$0\.05$/m);
    expect(out).toMatch(/^agents\s+1\s+2\s+2,240\s+6\s+\$0\.02$/m);
    expect(out).toMatch(/^agents\/implement\s+1\s+2\s+2,240\s+6\s+\$0\.02$/m);
    expect(out).toContain('cost per day   ▁█  2026-11-30 … 2026-12-01, at most $0.05');
    expect(out).toContain('not counted (the journal could not be read):\n  broken.json: ');
    expect(out).not.toContain('run.live.json');
  });
});
