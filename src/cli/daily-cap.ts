/**
 * The daily cost cap in the CLI: `budget.daily_usd` of `.github/interlock.yml` in the working directory, and the
 * other runs' spend of the day counted from the journals in the runs folder (`.interlock/runs`). Only journals
 * written on or after the start of that day are read (a file's modification time says so without reading it); a
 * journal that does not parse is not counted and is named in the step log and in the escalation's words.
 */

import { existsSync, readFileSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { CONFIG_PATH, parseConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { dailyUsage, emptySums } from '../journal/daily-usage.js';
import { parseJournal } from '../journal/parse.js';
import { approveRerunCommand } from '../render/next-commands.js';
import type { DailyCapSource, OthersSpend } from '../runner/daily-cap.js';
import type { Io } from './io.js';
import { listJson } from './journals.js';

/** What the journals in `dir` other than `own` spent on `day`: only files written since that day began are read. */
export function countRunsFolder(io: Io, dir: string, own: string, day: string): OthersSpend {
  const since = Date.parse(`${day}T00:00:00Z`);
  const spend: OthersSpend = { others: emptySums(), counted: 0, of: 0, uncounted: [] };
  for (const file of listJson(dir)) {
    if (resolve(file) === resolve(own) || statSync(file).mtimeMs < since) continue;
    spend.of += 1;
    const shown = relative(io.cwd, file) || file;
    try {
      const today = dailyUsage([parseJournal(readFileSync(file, 'utf8'), shown)]).find((d) => d.day === day);
      spend.counted += 1;
      for (const k of Object.keys(spend.others) as (keyof OthersSpend['others'])[])
        spend.others[k] += today?.total[k] ?? 0;
    } catch (e) {
      spend.uncounted.push(`${shown}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  return spend;
}

/** The cap of the routes file in the working directory, counted from the runs folder; undefined without one. */
export function cliDailyCap(io: Io, journalFile: string, runId: string): DailyCapSource | undefined {
  const file = resolve(io.cwd, CONFIG_PATH);
  if (!existsSync(file)) return undefined;
  const daily = parseConfig(CONFIG_PATH, readFileSync(file, 'utf8')).budget?.daily_usd;
  if (daily === undefined) return undefined;
  const dir = resolve(io.cwd, '.interlock', 'runs');
  return {
    daily_usd: daily,
    count: async (day) => countRunsFolder(io, dir, journalFile, day),
    goOn: (node) => approveRerunCommand('cli', node, { runId }),
  };
}

/** `model_prices` of `.github/interlock.yml` in the working directory (the key proxy's prices), or none. */
export function cliModelPrices(io: Io): Config['model_prices'] {
  const file = resolve(io.cwd, CONFIG_PATH);
  if (!existsSync(file)) return undefined;
  return parseConfig(CONFIG_PATH, readFileSync(file, 'utf8')).model_prices;
}
