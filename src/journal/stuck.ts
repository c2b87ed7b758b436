import { parseJournal } from './parse.js';
import { JournalError } from './state.js';

interface StuckRun {
  file: string;
  run_id: string;
  last_event: string;
  last_activity_at: string;
  idle: string;
  subject?: string;
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
        const started = j.events[0];
        out.push({
          file,
          run_id: j.run_id,
          last_event: last.type,
          last_activity_at: last.at,
          idle: human(idle),
          // Where to report it: the issue or pull request the run is about.
          ...(started?.type === 'RunStarted' ? { subject: started.subject } : {}),
        });
      }
    } catch (e) {
      if (!(e instanceof JournalError)) throw e;
      out.push({ file, run_id: '?', last_event: '?', last_activity_at: '?', idle: '?', error: e.message });
    }
  }
  return out;
}

/** Parses 30m, 24h, 7d, 90s or 500ms into milliseconds; undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text.trim());
  if (!m) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[
    m[2] as 'ms' | 's' | 'm' | 'h' | 'd'
  ];
  return Number(m[1]) * unit;
}
