/**
 * The daily cost cap in the CLI: `budget.daily_usd` of `.github/interlock.yml` in the working directory, and the
 * other runs' spend of the day counted from the journals in the runs folder (`.interlock/runs`, listed by
 * `FileRuns`, counted by `countOtherRuns` as every face counts). Only journals written on or after the start of that
 * day are read (a file's modification time says so without reading it); a journal that does not parse is not
 * counted and is named in the step log and in the escalation's words.
 */

import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { type ConfigLoader, configLoader } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { approveRerunCommand } from '../render/next-commands.js';
import { countOtherRuns, type DailyCapSource } from '../runner/daily-cap.js';
import { FileRuns } from '../store/file-runs.js';
import type { Io } from './io.js';

/** `.github/interlock.yml` of the working directory, read once for the command however often it is asked. */
export function cliConfig(io: Io): ConfigLoader {
  return configLoader((path) => {
    const file = resolve(io.cwd, path);
    return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  });
}

/** The cap of the routes file in the working directory, counted from the runs folder; undefined without one. */
export async function cliDailyCap(
  io: Io,
  config: ConfigLoader,
  journalFile: string,
  runId: string,
): Promise<DailyCapSource | undefined> {
  const daily = (await config.file())?.budget?.daily_usd;
  if (daily === undefined) return undefined;
  const dir = resolve(io.cwd, '.interlock', 'runs');
  return {
    daily_usd: daily,
    count: (day) =>
      countOtherRuns(new FileRuns(dir), {
        day,
        own: (r) => resolve(r.where) === resolve(journalFile),
        shown: (r) => relative(io.cwd, r.where) || r.where,
      }),
    goOn: (node) => approveRerunCommand('cli', node, { runId }),
  };
}

/** `model_prices` of `.github/interlock.yml` in the working directory (the key proxy's prices), or none. */
export async function cliModelPrices(config: ConfigLoader): Promise<Config['model_prices']> {
  return (await config.file())?.model_prices;
}
