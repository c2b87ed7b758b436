import { JournalError } from '../journal/fold.js';
import { parseJournal } from '../journal/parse.js';

export interface StuckRun {
  file: string;
  run_id: string;
  last_event: string;
  last_activity_at: string;
  idle: string;
  error?: string;
}

function human(ms: number): string {
  if (ms >= 86_400_000) return `${(ms / 86_400_000).toFixed(1)}d`;
  if (ms >= 3_600_000) return `${(ms / 3_600_000).toFixed(1)}h`;
  return `${Math.round(ms / 60_000)}m`;
}

/** Runs not ended whose last event (of any kind) is older than the threshold. Pure: `now` is passed in. */
export function stuckRuns(
  files: Array<{ file: string; text: string }>,
  now: number,
  thresholdMs: number,
): StuckRun[] {
  const out: StuckRun[] = [];
  for (const { file, text } of files) {
    try {
      const j = parseJournal(text, file);
      const last = j.events[j.events.length - 1];
      if (!last || last.type === 'RunCompleted' || last.type === 'RunFailed') continue;
      const idle = now - Date.parse(last.at);
      if (idle > thresholdMs) {
        out.push({
          file,
          run_id: j.run_id,
          last_event: last.type,
          last_activity_at: last.at,
          idle: human(idle),
        });
      }
    } catch (e) {
      if (!(e instanceof JournalError)) throw e;
      out.push({ file, run_id: '?', last_event: '?', last_activity_at: '?', idle: '?', error: e.message });
    }
  }
  return out;
}
