/** What runs cost over days, in words (`interlock usage`, issue 38): a table per day, a sparkline, per graph and node. */
import { emptySums, type UsageDay, type UsageSums } from '../../journal/daily-usage.js';

const BARS = '▁▂▃▄▅▆▇█';

/** One character per value, scaled to the largest (all `▁` when every value is 0). */
export function sparkline(values: number[]): string {
  const max = Math.max(0, ...values);
  return values.map((v) => BARS[max > 0 ? Math.round((v / max) * (BARS.length - 1)) : 0]).join('');
}

/** Every day from the first to the last, the days without a run as zeros (the sparkline's x axis). */
function everyDay(days: UsageDay[]): UsageDay[] {
  if (!days.length) return [];
  const by = new Map(days.map((d) => [d.day, d]));
  const out: UsageDay[] = [];
  for (let t = Date.parse(days[0]!.day); t <= Date.parse(days.at(-1)!.day); t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    out.push(by.get(day) ?? { day, total: emptySums(), by_graph: {}, by_node: {} });
  }
  return out;
}

const money = (n: number) => `$${n.toFixed(2)}`;
const count = (n: number) => n.toLocaleString('en-US');
const tokens = (s: UsageSums) => s.input_tokens + s.output_tokens;

function sum(list: UsageSums[]): UsageSums {
  const t = emptySums();
  for (const s of list) for (const k of Object.keys(t) as (keyof UsageSums)[]) t[k] += s[k];
  return t;
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '),
  );
}

const cells = (s: UsageSums) => [
  count(s.runs),
  count(s.attempts),
  count(tokens(s)),
  count(s.turns),
  money(s.cost_usd),
];
const HEAD = ['runs', 'attempts', 'tokens', 'turns', 'cost'];

/** The report: a row per day, a sparkline of cost per day, then the same days per graph and per node. */
export function usageDaysText(days: UsageDay[]): string {
  if (!days.length) return 'no usage journaled in these journals';
  const all = everyDay(days);
  const total = sum(days.map((d) => d.total));
  const per = (pick: (d: UsageDay) => Record<string, UsageSums>) => {
    const keys = [...new Set(days.flatMap((d) => Object.keys(pick(d))))].sort();
    return keys.map((k) => [k, ...cells(sum(days.map((d) => pick(d)[k] ?? emptySums())))]);
  };
  const lines = [
    ...table([['day', ...HEAD], ...days.map((d) => [d.day, ...cells(d.total)]), ['all', ...cells(total)]]),
    '',
    `cost per day   ${sparkline(all.map((d) => d.total.cost_usd))}  ${all[0]!.day} … ${all.at(-1)!.day}, at most ${money(Math.max(...all.map((d) => d.total.cost_usd)))}`,
    `tokens per day ${sparkline(all.map((d) => tokens(d.total)))}`,
    '',
    ...table([['graph', ...HEAD], ...per((d) => d.by_graph)]),
    '',
    ...table([['node', ...HEAD], ...per((d) => d.by_node)]),
  ];
  if (total.without_cost)
    lines.push(
      '',
      `${total.without_cost} attempt(s) reported tokens but no cost (Codex reports none): not in the cost.`,
    );
  return lines.join('\n');
}
