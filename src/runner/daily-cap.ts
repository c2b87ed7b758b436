/**
 * The shell's side of the daily cost cap (src/protocol/daily-cap.ts): the face counts what the other runs of the
 * repository spent on the decision's UTC day from its own store, once per step (cached by setup and day), and
 * says in the step log what it could not count. Nothing here runs unless a cap is configured.
 */

import { dailyUsage, emptySums, type UsageSums } from '../journal/daily-usage.js';
import { parseJournal } from '../journal/parse.js';
import type { DailyCap } from '../protocol/daily-cap.js';
import type { ListedRun, RunCatalog } from '../store/types.js';
import { isoNow } from './journal-io/read.js';

/** What a face counted of the other runs' spend on one day. */
interface OthersSpend {
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

/**
 * What the other runs a catalogue lists spent on `day` (UTC): the one count of every face (issue 45), whatever
 * store lists the runs. A run the listing shows unwritten since the day began is not read; at most `maxReads`
 * journals are (the rest said not counted); one that is gone or does not parse is named, never counted.
 */
export async function countOtherRuns(
  catalog: RunCatalog,
  o: { day: string; own: (run: ListedRun) => boolean; maxReads?: number; shown?: (run: ListedRun) => string },
): Promise<OthersSpend> {
  const since = Date.parse(`${o.day}T00:00:00Z`);
  const spend: OthersSpend = { others: emptySums(), counted: 0, of: 0, uncounted: [] };
  const others = ((await catalog.listRuns()) ?? []).filter(
    (r) => !o.own(r) && !(r.modifiedMs !== undefined && r.modifiedMs < since),
  );
  spend.of = others.length;
  const max = o.maxReads ?? Number.POSITIVE_INFINITY;
  for (const [i, run] of others.entries()) {
    if (i >= max) {
      spend.uncounted.push(`${others.length - max} run(s) past the ${max} read in one step`);
      break;
    }
    const shown = o.shown?.(run) ?? run.where;
    try {
      const raw = await catalog.readText(run);
      if (!raw) throw new Error('its journal is gone');
      const today = dailyUsage([parseJournal(raw.text, shown)]).find((d) => d.day === o.day);
      spend.counted += 1;
      for (const k of Object.keys(spend.others) as (keyof UsageSums)[])
        spend.others[k] += today?.total[k] ?? 0;
    } catch (e) {
      spend.uncounted.push(`${shown}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  return spend;
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
