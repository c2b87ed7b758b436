/**
 * Who a waiting node waits for, as the model-based test compares it across the faces (issue 45): why it waits
 * (a gate, a hold after an interruption or a rerun, an escalation after failures, at the run's budget or at the
 * repository's daily cost cap), who approved it so far, and how many people must. The truth is the fold of the
 * journal (what `status --json` is); each face is read for what it shows, and a field a face shows must be the
 * truth's. Both worlds use these (model-checks.ts on the CLI, model-github.test.ts on GitHub).
 */
import { type Graph, nodeById } from '../../src/graph/model.js';
import type { NodeProgress, RunState } from '../../src/journal/state.js';
import { effectivePolicy } from '../../src/protocol/policy.js';

/** What a face shows of who a node waits for; a field it does not show is absent. */
export interface Who {
  reason?: string;
  approvedBy?: string[];
  required?: number;
}

/** Node → who, for the nodes of one run that wait for a person. */
export type Whos = Map<string, Who>;

function reasonOf(p: NodeProgress): string | undefined {
  if (p.state === 'awaiting_approval') return 'gate';
  if (p.state === 'held') return p.rerun_hold ? 'rerun' : 'interrupted';
  if (p.state !== 'escalated') return undefined;
  if (p.daily_cap_escalated) return 'daily-cap';
  if (p.budget_escalated) return 'budget';
  return p.loop_escalated ? 'loop' : 'failed';
}

/** The truth: from the fold, with the graph's and the node's `approvals:` (the repository's ask for no more). */
export function whoOfState(state: RunState, graph: Graph): Whos {
  const out: Whos = new Map();
  if (state.checkpoint.ended) return out;
  for (const [node, p] of state.nodes) {
    const reason = reasonOf(p);
    if (!reason) continue;
    const required = effectivePolicy(undefined, nodeById(graph, node)).required;
    out.set(node, { reason, approvedBy: [...p.approvals].sort(), required });
  }
  return out;
}

const people = (list: string) =>
  list
    .split(',')
    .map((s) => s.trim().replace(/^@/, ''))
    .filter(Boolean)
    .sort();

/** The reason an escalation's words give: the CLI's `needed:` line, a table's cell, the page's "why". */
function escalationReason(words: string): string {
  if (/daily cost cap/.test(words)) return 'daily-cap';
  if (/at (its|the run's) budget/.test(words)) return 'budget';
  if (/its loop ran its last cycle/.test(words)) return 'loop';
  return 'failed';
}

/**
 * A status table's rows (the terminal's, or Markdown's in a reply, a job summary, the progress comment): the
 * reason a row's last cell gives (a gate, a hold's kind, a budget or the daily cap) and who approved it so far
 * (`(approved by …)`; a row without it shows nobody, unless the terminal cut the row short).
 */
export function tableWhos(text: string): Whos {
  const out: Whos = new Map();
  for (const m of text.matchAll(
    /^\|? ?([a-z]+)(?: \([^)]*\))? +\|? ?(held|escalated|awaiting approval) (.*)$/gm,
  )) {
    const [, node, kind, cell] = m as unknown as [string, string, string, string];
    // A Markdown table's last cell passed the door (render/door.ts): its apostrophes are entities.
    const rest = unHtml(cell);
    const who: Who = {};
    if (kind === 'awaiting approval') who.reason = 'gate';
    else if (kind === 'held' && /⏸ rerun from a node/.test(rest)) who.reason = 'rerun';
    else if (kind === 'held' && /was interrupted/.test(rest)) who.reason = 'interrupted';
    else if (kind === 'escalated' && /⏸ (at the run's budget|at the repository's daily cost cap)/.test(rest))
      who.reason = escalationReason(rest);
    const by = /\(approved by ([^)]*)\)/.exec(rest);
    if (by) who.approvedBy = people(by[1]!);
    else if (!rest.endsWith('…')) who.approvedBy = [];
    out.set(node, who);
  }
  return out;
}

/**
 * `interlock status`'s words after its table: the kind of each hold and the `needed:` line of each escalation
 * (the daily cap, a budget, failures), merged over what the table shows.
 */
export function cliStatusWhos(text: string): Whos {
  const out = tableWhos(text);
  const set = (node: string, reason: string) => out.set(node, { ...out.get(node), reason });
  for (const m of text.matchAll(/^held: (\S+) \((rerun from a node|its attempt was interrupted)/gm))
    set(m[1]!, m[2] === 'rerun from a node' ? 'rerun' : 'interrupted');
  for (const m of text.matchAll(/^escalated: (\S+)\n((?: {2}.*\n)*)/gm)) {
    const needed = /^ {2}needed: (.*)$/m.exec(m[2]!)?.[1];
    if (needed !== undefined) set(m[1]!, escalationReason(needed));
  }
  return out;
}

function unHtml(s: string): string {
  return s
    .replace(/&#x2F;|&#47;/g, '/')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** One row of the maintainers' page (the App's, or `interlock ui`'s): its repository, run, node and who. */
export interface PageWho {
  repo: string;
  run: string;
  node: string;
  who: Who;
}

/** The page's rows: "Why it waits" (the reason, `k of n approvals`) and "Who may approve … approved by …". */
export function pageWhos(html: string): PageWho[] {
  const out: PageWho[] = [];
  for (const card of html.split('<article class="row"').slice(1)) {
    const node = /<h3 id="r\d+">([^<]*)/.exec(card)?.[1];
    const run = /<dt>Run<\/dt><dd><a href="[^"]*">([^<]*)<\/a>/.exec(card)?.[1];
    if (node === undefined || run === undefined) continue;
    const repo = /<h3 id="r\d+">[^<]*<span class="muted">in ([^<]*)<\/span>/.exec(card)?.[1] ?? 'local';
    const why = unHtml(/<dt>Why it waits<\/dt><dd>([^<]*)<\/dd>/.exec(card)?.[1] ?? '');
    const may = unHtml(/<dt>Who may approve<\/dt><dd>([^<]*)<\/dd>/.exec(card)?.[1] ?? '');
    const by = may.lastIndexOf('; approved by ');
    const who = whyWho(why, by >= 0 ? may.slice(by + '; approved by '.length) : undefined);
    out.push({ repo: unHtml(repo), run: unHtml(run), node: unHtml(node).trim(), who });
  }
  return out;
}

/** The page's words for why a node waits (the stuck notice uses them too), and its "approved by" list. */
function whyWho(why: string, approved: string | undefined): Who {
  const who: Who = {};
  if (why.startsWith('approval before')) who.reason = 'gate';
  else if (why.startsWith('held by a rerun')) who.reason = 'rerun';
  else if (why.startsWith('held:')) who.reason = 'interrupted';
  else if (why.startsWith('escalated')) who.reason = escalationReason(why);
  const count = /\((\d+) of (\d+) approvals?\)/.exec(why);
  if (count) who.required = Number(count[2]);
  if (approved !== undefined) who.approvedBy = approved === 'nobody yet' ? [] : people(approved);
  return who;
}

/** `mode: stuck`'s notice: a line a node that waits, `- c: <why>; approved by <people>`. */
export function noticeWhos(text: string): Whos {
  const out: Whos = new Map();
  for (const m of text.matchAll(/^- (\S+): (.*); approved by (.*)$/gm)) out.set(m[1]!, whyWho(m[2]!, m[3]!));
  return out;
}

function words(w: Who): string {
  const parts = [
    ...(w.reason !== undefined ? [w.reason] : []),
    ...(w.approvedBy !== undefined ? [`approved by ${w.approvedBy.join(', ') || 'nobody'}`] : []),
    ...(w.required !== undefined ? [`${w.required} required`] : []),
  ];
  return parts.join(', ');
}

/**
 * Where `face` and the truth disagree on who a node waits for: each field the face shows, for each node both
 * list (which nodes wait is the agreement check's; this one is about who and why). `run` names the run in words.
 */
export function whoDisagreements(face: string, run: string, truth: Whos, got: Whos): string[] {
  const out: string[] = [];
  for (const [node, g] of got) {
    const t = truth.get(node);
    if (!t) continue;
    const same =
      (g.reason === undefined || g.reason === t.reason) &&
      (g.approvedBy === undefined || g.approvedBy.join(',') === t.approvedBy?.join(',')) &&
      (g.required === undefined || g.required === t.required);
    if (!same) out.push(`${face} says ${run} ${node} waits as ${words(g)}; the journal: ${words(t)}`);
  }
  return out;
}
