/**
 * The shell's side of the daily cost cap (src/protocol/daily-cap.ts): the face counts what the other runs of the
 * repository spent on the decision's UTC day from its own store, once per step (cached by setup and day), and
 * says in the step log what it could not count. Nothing here runs unless a cap is configured.
 */

import type { UsageSums } from '../journal/daily-usage.js';
import type { DailyCap } from '../protocol/daily-cap.js';
import { isoNow } from './journal-io/read.js';

/** What a face counted of the other runs' spend on one day. */
export interface OthersSpend {
  others: UsageSums;
  /** Runs whose journals were read, of the runs that may have spent that day (this run left out of both). */
  counted: number;
  of: number;
  /** What could not be counted, for the step log (`run x: the journal does not parse`). */
  uncounted: string[];
  /** What the escalation says beyond "counted from N of M" (a store that cannot list other runs). */
  note?: string;
}

/** A configured cap and how the face counts the day's spend of the other runs. */
export interface DailyCapSource {
  daily_usd: number;
  count: (day: string) => Promise<OthersSpend>;
  /** The command that lets a node go on past the cap, in the face's words (render/next-commands.ts). */
  goOn: (node: string) => string;
}

const counted = new WeakMap<DailyCapSource, { day: string; spend: OthersSpend }>();

/** The UTC day of an ISO time. */
const dayOf = (iso: string) => new Date(iso).toISOString().slice(0, 10);

function capOf(source: DailyCapSource, day: string, spend: OthersSpend): DailyCap {
  return {
    daily_usd: source.daily_usd,
    day,
    others: spend.others,
    counted: spend.counted,
    of: spend.of,
    goOn: source.goOn,
    ...(spend.note ? { note: spend.note } : {}),
  };
}

/** The cap with the day's spend of other runs, counted once per source and day; undefined without a cap. */
export async function dailyCapNow(setup: {
  dailyCap?: DailyCapSource;
  now?: () => string;
  say?: (m: string) => void;
}): Promise<DailyCap | undefined> {
  const source = setup.dailyCap;
  if (!source) return undefined;
  const day = dayOf((setup.now ?? isoNow)());
  let c = counted.get(source);
  if (c?.day !== day) {
    c = { day, spend: await source.count(day) };
    counted.set(source, c);
    const s = c.spend;
    setup.say?.(
      `daily cost cap $${source.daily_usd.toFixed(2)}: other runs spent $${s.others.cost_usd.toFixed(2)} on ${day} (UTC), counted from ${s.counted} of ${s.of} runs${s.uncounted.length ? `; not counted: ${s.uncounted.join('; ')}` : ''}`,
    );
  }
  return capOf(source, day, c.spend);
}

/**
 * The cap for a decision taken without waiting (a chained dispatch): the spend counted earlier in this step for
 * the same day; `'recount'` when it was counted for another day or not yet (the whole step decides then).
 */
export function dailyCapCounted(setup: {
  dailyCap?: DailyCapSource;
  now?: () => string;
}): DailyCap | undefined | 'recount' {
  const source = setup.dailyCap;
  if (!source) return undefined;
  const day = dayOf((setup.now ?? isoNow)());
  const c = counted.get(source);
  return c?.day === day ? capOf(source, day, c.spend) : 'recount';
}
