/**
 * An attempt's tab at the key proxy (src/os/proxies/key-proxy-tab.ts): opened before its command with the limits
 * it may not pass (its node's budget, and what is left of the run's), closed after it; its metered usage then
 * becomes the attempt's (metered-usage.ts). Nothing happens when the proxy is off.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { Approach, Graph, GraphNode } from '../../graph/model.js';
import { runSpent } from '../../journal/checkpoint-usage.js';
import type { Failure, Usage } from '../../journal/events/fields.js';
import type { RunState } from '../../journal/state.js';
import { microUsd } from '../../journal/usage-totals.js';
import { closeAttemptTab, openAttemptTab, secretValues } from '../../os/node-user/node-credentials.js';
import type { ProxyTab, TabLimit } from '../../os/proxies/key-proxy-tab.js';
import { amount } from '../../protocol/budget.js';
import { dailyCapLeft } from '../../protocol/daily-cap.js';
import { redactSecrets } from '../../render/redact.js';
import { type DailyCapSource, dailyCapCounted } from '../daily-cap.js';
import type { RunSnapshot } from '../journal-io/read.js';
import type { EngineWatch } from './agent-run.js';
import type { AttemptOptions, AttemptSetup } from './attempt.js';
import { shownPath } from './checks-live-log.js';
import { meteredUsage } from './metered-usage.js';

/**
 * The limits the proxy holds an attempt of `node` to: its budget's tokens and cost, what is left of the run's,
 * and what is left of the repository's daily cost cap (as counted when this step dispatched it).
 */
function tabLimits(
  setup: { graph: Graph; dailyCap?: DailyCapSource; now?: () => string },
  cur: RunSnapshot,
  node: GraphNode,
  approach: Approach,
): TabLimit[] {
  const { graph } = setup;
  const state: RunState = cur.state;
  const out: TabLimit[] = [];
  const counted = dailyCapCounted(setup);
  const cap = counted === 'recount' ? undefined : counted;
  const left = dailyCapLeft(cur.journal, state.nodes.get(node.id), approach, cap);
  if (cap && left !== undefined)
    out.push({
      what: 'cost_micro_usd',
      max: microUsd(left),
      names: `the repository's daily cost cap, ${amount('cost_usd', left)} left of ${amount('cost_usd', cap.daily_usd)} on ${cap.day} UTC (budget.daily_usd)`,
    });
  const run = graph.budget ? runSpent(graph, state.nodes) : undefined;
  for (const k of ['tokens', 'cost_usd'] as const) {
    const what = k === 'tokens' ? 'tokens' : 'cost_micro_usd';
    const units = (n: number) => (k === 'tokens' ? n : microUsd(n));
    const own = node.budget?.[k];
    if (own !== undefined)
      out.push({ what, max: units(own), names: `the node's budget of ${amount(k, own)} (budget.${k})` });
    const runMax = graph.budget?.[k];
    if (runMax !== undefined && run) {
      const left = Math.max(0, runMax - run[k]);
      out.push({
        what,
        max: units(left),
        names: `what was left of the run's budget, ${amount(k, left)} of ${amount(k, runMax)} (budget.${k})`,
      });
    }
  }
  return out;
}

/** An open tab and how the attempt ends it. */
export interface AttemptTab {
  tab: ProxyTab;
  /** Closes the tab without reading it (an attempt that threw). */
  shut: () => void;
  /** Closes the tab: the attempt's usage with the metered figures counting, and a budget stop when it refused. */
  close: (
    usage: Usage,
    warn: (m: string) => void,
  ) => Promise<{
    usage: Usage;
    stopped: Failure | undefined;
  }>;
}

/** Where an attempt's recording is written, and the path the journal names it by. */
export interface RecordingPlace {
  /** The file written (absolute). */
  file: string;
  /** Its path in the journal: from the working directory (the CLI), or inside the artifact (the Action). */
  path: string;
}

/**
 * Where a face keeps each attempt's model exchange, when not beside its log: the Action writes it in a folder of
 * its own and keeps it as a workflow artifact too (src/action/recordings.ts).
 */
export interface Recordings {
  /** Where an attempt's recording is written; asked only when there is one to write. */
  place: (node: string, attempt: number) => RecordingPlace;
  /** Removed from the recording, beside the model keys and GitHub tokens of the node's environment. */
  secrets: readonly string[];
  /** Keeps the written recording elsewhere too; what the journal's record of it gains (the artifact). */
  keep?: (
    rec: RecordingPlace & { text: string; node: string; attempt: number },
    warn: (m: string) => void,
  ) => Promise<Record<string, unknown> | undefined>;
}

/** Where an attempt's model exchange is kept: beside its log (`<node>-<attempt>.model.jsonl`), when it has one. */
function besideLog(setup: AttemptSetup, node: string, attempt: number): RecordingPlace | undefined {
  const log = setup.logFile?.(node, attempt);
  if (!log) return undefined;
  const file = log.replace(/(\.log)?$/, '.model.jsonl');
  return { file, path: shownPath(setup.cwd, file) };
}

interface RecordingTo {
  /** Where it goes: asked when it is written (the Action makes its folder then). */
  place: () => RecordingPlace;
  secrets: string[];
  node: string;
  attempt: number;
  keep: Recordings['keep'];
}

/** Writes the exchange, the step's secrets removed; its path and hash (and where else it is kept) go in `usage.metered`. */
async function writeRecording(tab: ProxyTab, to: RecordingTo, warn: (m: string) => void) {
  const r = tab.recording!;
  const place = to.place();
  const text = redactSecrets(r.lines, to.secrets)
    .value.map((l) => `${l}\n`)
    .join('');
  writeFileSync(place.file, text, { mode: 0o600 });
  const kept = await to.keep?.({ ...place, text, node: to.node, attempt: to.attempt }, warn);
  return {
    path: place.path,
    sha256: createHash('sha256').update(text).digest('hex'),
    calls: r.lines.length,
    ...(r.left_out ? { calls_left_out: r.left_out } : {}),
    ...kept,
  };
}

/**
 * Opens the attempt's tab; `onStop` is told when the proxy refuses a call at a limit (the agent is stopped).
 * With `record`, the tab keeps the attempt's model exchange, written there when the tab closes.
 */
function openTab(
  execTag: string,
  limits: TabLimit[],
  onStop: (why: string) => void,
  record?: RecordingTo,
): AttemptTab | undefined {
  const tab = openAttemptTab(execTag, limits, record !== undefined);
  if (!tab) return undefined;
  tab.onStop = onStop;
  let closed = false;
  const shut = () => {
    if (!closed) closeAttemptTab(execTag, tab);
    closed = true;
  };
  return {
    tab,
    shut,
    close: async (usage, warn) => {
      shut();
      const m = meteredUsage(usage, tab.totals);
      for (const w of m.warnings) warn(w);
      // Kept whenever a call was (a replay's request that departed at once is one); journaled with a metered call.
      if (record && tab.recording?.lines.length) {
        try {
          const kept = await writeRecording(tab, record, warn);
          if (m.usage.metered) m.usage.metered = { ...m.usage.metered, recording: kept };
        } catch (e) {
          warn(`interlock: the model exchange could not be kept: ${(e as Error).message}`);
        }
      }
      return { usage: m.usage, stopped: tab.stopped ? { check: 'budget', message: tab.stopped } : undefined };
    },
  };
}

/**
 * The attempt's tab at the key proxy (issue 48): its limits, and its recording where the face keeps it (the CLI:
 * beside its log in `<journal>.logs/`; the Action: `recordings`). The agent is stopped when the proxy refuses a
 * call at a limit.
 */
export function openMeter(
  setup: AttemptSetup,
  opts: AttemptOptions,
  watch: EngineWatch | undefined,
): AttemptTab | undefined {
  const limits = tabLimits(setup, opts.cur, opts.node, opts.approach);
  const { id } = opts.node;
  const kept = setup.recordings;
  const beside = kept ? undefined : besideLog(setup, id, opts.attempt);
  const secrets = [...secretValues(setup.baseEnv), ...(kept?.secrets ?? [])];
  const record =
    kept || beside
      ? {
          place: () => (kept ? kept.place(id, opts.attempt) : beside!),
          secrets,
          node: id,
          attempt: opts.attempt,
          keep: kept?.keep,
        }
      : undefined;
  return openTab(opts.execTag, limits, (why) => watch?.stop(why), record);
}
