import * as z from 'zod';
import { jsonParseError } from '../graph/errors.js';
import {
  checkEvent,
  type Journal,
  type JournalEvent,
  JournalHeaderSchema,
  type NewEvent,
} from './events/events.js';
import { JournalError } from './state.js';

/**
 * Decodes journal bytes as strict UTF-8: a lenient decode would swap bad bytes for U+FFFD and the next
 * write would silently replace the journal's content.
 */
function decodeStrict(bytes: Uint8Array, file: string): string {
  const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    return fatal.decode(bytes);
  } catch {
    // Find the line (a newline byte never occurs inside a multi-byte sequence) and name its event.
    let start = 0;
    for (let line = 1; ; line++) {
      const nl = bytes.indexOf(0x0a, start);
      const end = nl < 0 ? bytes.length : nl;
      const chunk = bytes.subarray(start, end);
      try {
        fatal.decode(chunk);
      } catch {
        const lenient = new TextDecoder('utf-8').decode(chunk).trim().replace(/,$/, '');
        let event = '';
        try {
          const ev = JSON.parse(lenient) as { seq?: unknown; type?: unknown };
          if (ev && typeof ev === 'object' && 'seq' in ev)
            event = ` (event seq ${JSON.stringify(ev.seq)}, type ${JSON.stringify(ev.type ?? null)})`;
        } catch {
          // not one event a line: the line number is what there is
        }
        throw new JournalError(
          `${file}: line ${line}${event} is not valid UTF-8; it was left untouched: restore it from a backup or the journal branch's history`,
          null,
        );
      }
      if (nl < 0) throw new JournalError(`${file}: the journal is not valid UTF-8`, null);
      start = nl + 1;
    }
  }
}

/** Where JSON.parse stopped, as a line and (one event a line, as serializeJournal writes) the event there. */
function jsonErrorLine(text: string, offset: number): { text: string; seq: number | null } {
  const line = text.slice(0, offset).split('\n').length;
  const seq = /^\s*\{"seq":(\d+)/.exec(text.split('\n')[line - 1] ?? '');
  return {
    text: ` at line ${line}${seq ? ` (event seq ${seq[1]})` : ''}`,
    seq: seq ? Number(seq[1]) : null,
  };
}

/** Parses a journal (text, or bytes decoded as strict UTF-8) and validates every event's shape. Throws JournalError naming the file and first bad event. */
export function parseJournal(input: string | Uint8Array, file: string): Journal {
  const text = typeof input === 'string' ? input : decodeStrict(input, file);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    const { offset, message: why } = jsonParseError(text, (e as Error).message);
    const where = jsonErrorLine(text, offset);
    throw new JournalError(
      `${file}: the journal is not valid JSON${where.text}: ${why}; it was left untouched: restore it from a backup or the journal branch's history`,
      where.seq,
    );
  }
  const header = JournalHeaderSchema.safeParse(raw);
  if (!header.success) {
    throw new JournalError(
      `${file}: not an interlock journal: ${z.prettifyError(header.error).replace(/\s*\n\s*/g, ' ')}`,
      null,
    );
  }
  const events: JournalEvent[] = [];
  header.data.events.forEach((ev, i) => {
    const r = checkEvent(ev);
    if (!r.success) {
      const seq = (ev as { seq?: unknown })?.seq;
      const type = (ev as { type?: unknown })?.type;
      throw new JournalError(
        `${file}: event #${i + 1} (seq ${JSON.stringify(seq ?? null)}, type ${JSON.stringify(type ?? null)}) is malformed: ${z
          .prettifyError(r.error)
          .replace(/\s*\n\s*/g, ' ')}`,
        typeof seq === 'number' ? seq : null,
      );
    }
    events.push(r.data);
  });
  return {
    format: header.data.format,
    run_id: header.data.run_id,
    graph: header.data.graph,
    ...(header.data.progress_comment_id !== undefined
      ? { progress_comment_id: header.data.progress_comment_id }
      : {}),
    events,
  };
}

/** Serializes a journal: one event a line, so diffs on the journal branch stay readable. */
export function serializeJournal(journal: Journal): string {
  const head = JSON.stringify({
    format: journal.format,
    run_id: journal.run_id,
    graph: journal.graph,
    ...(journal.progress_comment_id !== undefined
      ? { progress_comment_id: journal.progress_comment_id }
      : {}),
  });
  const lines = journal.events.map((e) => `    ${JSON.stringify(e)}`);
  return `${head.slice(0, -1)},\n  "events": [\n${lines.join(',\n')}${lines.length ? '\n' : ''}  ]\n}\n`;
}

/** Returns a new journal with the events appended, numbered and stamped. Pure: `at` is passed in. */
export function appendEvents(journal: Journal, events: NewEvent[], at: string): Journal {
  let seq = journal.events.length;
  const added = events.map((e) => ({ seq: ++seq, at, ...e }) as JournalEvent);
  return { ...journal, events: [...journal.events, ...added] };
}
