/** `interlock stuck`: the runs in a folder that have been idle for longer than a threshold. */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseDuration, stuckRuns } from '../../journal/stuck.js';
import { FileRuns } from '../../store/file-runs.js';
import { EXIT, type Io, UsageError } from '../io.js';
import { runsIn } from '../journals.js';

export async function cmdStuck(io: Io, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { dir: { type: 'string' }, 'older-than': { type: 'string' }, json: { type: 'boolean' } },
  });
  const dir = resolve(io.cwd, values.dir ?? '.interlock/runs');
  const threshold = parseDuration(values['older-than'] ?? '24h');
  if (threshold === undefined)
    throw new UsageError(
      `--older-than "${values['older-than']}": use a number and a unit, e.g. 30m, 24h, 7d`,
    );
  const catalog = new FileRuns(dir);
  const files: Array<{ file: string; text: string }> = [];
  for (const run of runsIn(dir)) {
    const raw = await catalog.readText(run);
    if (raw) files.push({ file: run.where, text: raw.text });
  }
  const found = stuckRuns(files, Date.now(), threshold);
  if (values.json) io.out(`${JSON.stringify(found, null, 2)}\n`);
  else if (!found.length)
    io.out(`no run in ${dir} has been idle for over ${values['older-than'] ?? '24h'}\n`);
  else
    for (const s of found)
      io.out(
        `${s.run_id}: idle ${s.idle}, last ${s.last_event} at ${s.last_activity_at} (${s.file})${s.error ? ` — ${s.error}` : ''}\n`,
      );
  return EXIT.ok;
}
