/** `interlock usage`: tokens, cost and runs per day, per graph and per node, over the journals in a folder. */
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { dailyUsage } from '../../journal/daily-usage.js';
import type { Journal } from '../../journal/events/events.js';
import { parseJournal } from '../../journal/parse.js';
import { usageDaysText } from '../../render/usage/days.js';
import { FileRuns } from '../../store/file-runs.js';
import { EXIT, type Io, UsageError } from '../io.js';
import { runsIn } from '../journals.js';

export async function cmdUsage(io: Io, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { dir: { type: 'string' }, days: { type: 'string' }, json: { type: 'boolean' } },
  });
  const dir = resolve(io.cwd, values.dir ?? '.interlock/runs');
  const days = values.days === undefined ? 14 : Number(values.days);
  if (!Number.isInteger(days) || days < 1)
    throw new UsageError(`--days ${values.days}: give a whole number of days, 1 or more`);
  const journals: Journal[] = [];
  const unread: string[] = [];
  const catalog = new FileRuns(dir);
  for (const run of runsIn(dir)) {
    const shown = relative(io.cwd, run.where) || run.where;
    try {
      const raw = await catalog.readText(run);
      if (raw) journals.push(parseJournal(raw.text, shown));
    } catch (e) {
      unread.push(`${shown}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  const since = new Date(Date.now() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  const found = dailyUsage(journals).filter((d) => d.day >= since);
  if (values.json) io.out(`${JSON.stringify({ days: found, unread }, null, 2)}\n`);
  else {
    io.out(
      `usage of ${journals.length} journal(s) in ${relative(io.cwd, dir) || dir}, the last ${days} day(s) (UTC)\n\n`,
    );
    io.out(`${usageDaysText(found)}\n`);
    if (unread.length)
      io.out(`\nnot counted (the journal could not be read):\n${unread.map((u) => `  ${u}`).join('\n')}\n`);
  }
  return EXIT.ok;
}
