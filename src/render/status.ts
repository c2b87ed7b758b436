import type { Graph } from '../graph/model.js';
import { attemptInFlight, type NodeProgress, type NodeState, type RunState } from '../journal/state.js';
import { throughDoor } from './door.js';
import { attentionUnder, instanceSummary, namedInstances, wallWithin } from './instances.js';
import { approveCommand, approveRerunCommand, type Face } from './next-commands.js';
import { showsUsage, usageCell, usageLine } from './usage/words.js';

/** The state a person reads for a node: ready and failed-with-retries-left are told apart from pending. */
export function displayState(state: RunState, id: string): string {
  const p = state.nodes.get(id);
  if (!p) return 'unknown';
  if (p.state === 'pending') {
    if (state.checkpoint.ready_nodes.includes(id))
      return p.failures > 0 ? 'ready (retry)' : p.interrupted ? 'ready (rerun)' : 'ready';
    return 'waiting';
  }
  return p.state.replace('_', ' ');
}

function seconds(ms: number): string {
  return ms >= 60_000 ? `${(ms / 60_000).toFixed(1)}m` : `${(ms / 1000).toFixed(1)}s`;
}

/** Who approved a node that waits for people so far: every face's table names them, as the page does (issue 45). */
function approvedBy(p: NodeProgress): string {
  return p.approvals.length ? ` (approved by ${p.approvals.join(', ')})` : '';
}

/** Why a node escalated at a budget waits: the run's (or a sub-graph's) budget, or the repository's daily cap. */
function stoppedBeforeDispatch(p: NodeProgress): string {
  return `⏸ ${p.daily_cap_escalated ? "at the repository's daily cost cap" : "at the run's budget"}${approvedBy(p)}`;
}

function lastEvidence(p: NodeProgress, id: string, face: Face): string {
  // In a terminal the commands follow the table (`interlock status`); a comment's table names the comment form.
  if (p.state === 'awaiting_approval')
    return `⏸ approve before it runs${face === 'comment' ? `: ${approveCommand(face, id, { runId: '' })}` : ''}${approvedBy(p)}`;
  if (p.state === 'held' && p.rerun_hold)
    return `⏸ rerun from a node: replay: never, so a person approves its next attempt${face === 'comment' ? `: ${approveRerunCommand(face, id, { runId: '' })}` : ''}${approvedBy(p)}`;
  if (p.state === 'held')
    return `⚠ attempt ${p.attempts} was interrupted and may have partly run${approvedBy(p)}`;
  if (p.state === 'escalated' && p.budget_escalated) return stoppedBeforeDispatch(p);
  if (p.state === 'pending' && p.interrupted) return `attempt ${p.attempts} was interrupted`;
  if (p.overdue && attemptInFlight(p, p.overdue.attempt))
    return `⏰ overdue: attempt ${p.overdue.attempt} is past its ${p.overdue.bound} of ${p.overdue.limit}, still running`;
  const failing =
    p.state !== 'completed' && p.last_failures.length
      ? p.last_failures[p.last_failures.length - 1]
      : undefined;
  const by = p.state === 'escalated' ? approvedBy(p) : '';
  if (failing) return `✗ ${failing.check}: ${failing.message}${by}`;
  const ev = p.last_evidence[p.last_evidence.length - 1];
  if (!ev) return by.trim();
  return `${ev.passed ? '✓' : '✗'} ${ev.check}: ${ev.observed}${by}`;
}

/** A node as the table names it: with its loop's cycle (`review (cycle 2/3)`) and its reruns (issue 28). */
function nodeLabel(n: Graph['nodes'][number], p: NodeProgress): string {
  const cycle = n.repeat ? ` (cycle ${p.cycle ?? 1}/${n.repeat.max})` : '';
  const reruns = p.reruns ? (p.reruns > 1 ? ` (rerun ×${p.reruns})` : ' (rerun)') : '';
  return `${n.id}${cycle}${reruns}`;
}

/** Rows for a status table: node, state, attempts, time, usage (once some attempt reported it), last evidence. */
export function statusRows(graph: Graph, state: RunState, face: Face): string[][] {
  const usage = showsUsage(state);
  const row = (id: string, shown = id): string[] => {
    const p = state.nodes.get(id)!;
    const cells = [shown, displayState(state, id), String(p.attempts), seconds(wallWithin(state, id))];
    if (usage) cells.push(usageCell(state.checkpoint.usage.by_node?.[id]));
    return [...cells, instanceSummary(state, id) ?? lastEvidence(p, id, face)];
  };
  return graph.nodes.flatMap((n) => {
    // A for_each node's instances: counted on its row, those that need attention named below it (instances.ts).
    const { ids, more } = namedInstances(state, n.id);
    const extra = more ? [[`  … ${more} more`, '', '', '', ...(usage ? [''] : []), '']] : [];
    // The node's own row shows its loop's cycle and its reruns (nodeLabel).
    return [
      row(n.id, nodeLabel(n, state.nodes.get(n.id)!)),
      ...ids.map((id) => row(id, `  ${id}`)),
      ...extra,
    ];
  });
}

/** The longest cell of the Markdown table: a check's message past it is cut (the journal keeps it whole). */
const CELL_MAX = 600;

const HEADER = ['node', 'state', 'attempts', 'time', 'last evidence'];

/** The table's header: with a usage column once some attempt reported agent usage. */
function header(state: RunState): string[] {
  return showsUsage(state) ? [...HEADER.slice(0, 4), 'usage', HEADER[4]!] : HEADER;
}

/** A plain-text table for terminals. */
export function statusTable(graph: Graph, state: RunState, width = 120): string {
  const head = header(state);
  const rows = [head, ...statusRows(graph, state, 'cli')];
  const widths = head.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) => {
    const line = r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ');
    return line.length > width ? `${line.slice(0, width - 1)}…` : line;
  });
  lines.splice(
    1,
    0,
    widths.map((w, i) => '-'.repeat(i === widths.length - 1 ? Math.min(w, 20) : w)).join('  '),
  );
  const cp = state.checkpoint;
  const title = `run ${cp.run_id} (${cp.graph.name}): ${cp.status}${cp.ended ? ` (${cp.ended.reason}, by ${cp.ended.by})` : ''}`;
  const usage = usageLine(graph, state);
  return [title, ...(usage ? [usage] : []), '', ...lines].join('\n');
}

/** A Markdown table, for job summaries, comments and check runs. */
export function statusMarkdown(graph: Graph, state: RunState, secrets: readonly string[] = []): string {
  // The node's name (an instance's comes from an output) and its last evidence (what checks observed, what the
  // node said) are untrusted text: they pass the door. The other cells are interlock's own words and numbers.
  const door = (s: string) => throughDoor(s, 'line', { secrets, max: CELL_MAX });
  const own = (s: string) => s.replace(/\|/g, '\\|');
  const cells = (r: string[]) => r.map((c, i) => (i === 0 || i === r.length - 1 ? door(c) : own(c)));
  const rows = statusRows(graph, state, 'comment').map((r) => `| ${cells(r).join(' | ')} |`);
  const head = header(state);
  return [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows].join('\n');
}

const CLASS: Record<NodeState | 'ready', string> = {
  pending: 'pending',
  ready: 'ready',
  in_flight: 'inflight',
  completed: 'completed',
  skipped: 'skipped',
  held: 'held',
  escalated: 'escalated',
  awaiting_approval: 'awaiting',
  expanded: 'inflight',
  tolerated: 'escalated',
};

/** Mermaid ids: prefixed, since words such as `end` are reserved in flowcharts. */
const mid = (id: string) => `n_${id}`;

/** A Mermaid flowchart of the graph, each node coloured by its state. */
export function statusMermaid(graph: Graph, state?: RunState): string {
  const lines = ['flowchart TD'];
  for (const n of graph.nodes) {
    const counted = state && instanceSummary(state, n.id);
    const label = state
      ? `${n.id}<br/>${displayState(state, n.id)}${counted ? `<br/>${counted}` : ''}`
      : n.id;
    lines.push(`  ${mid(n.id)}["${label.replace(/"/g, '#quot;')}"]`);
  }
  for (const n of graph.nodes) for (const d of n.depends_on) lines.push(`  ${mid(d)} --> ${mid(n.id)}`);
  if (state) {
    lines.push(
      '  classDef completed fill:#2da44e,color:#fff,stroke:#1a7f37',
      '  classDef skipped fill:#d0d7de,color:#24292f,stroke:#8c959f',
      '  classDef inflight fill:#0969da,color:#fff,stroke:#0550ae',
      '  classDef ready fill:#ddf4ff,color:#24292f,stroke:#0969da',
      '  classDef held fill:#bf8700,color:#fff,stroke:#9a6700',
      '  classDef escalated fill:#cf222e,color:#fff,stroke:#a40e26',
      '  classDef pending fill:#fff,color:#24292f,stroke:#8c959f',
    );
    // Only when a node awaits approval: diagrams of runs without a gate stay as they were.
    if (state.checkpoint.awaiting_approval_nodes)
      lines.push('  classDef awaiting fill:#8250df,color:#fff,stroke:#6639ba');
    for (const n of graph.nodes) {
      const p = state.nodes.get(n.id);
      // An expanded node takes the colour of what waits for a person under it, if anything does.
      const key =
        p?.state === 'pending' && state.checkpoint.ready_nodes.includes(n.id)
          ? 'ready'
          : p?.state === 'expanded'
            ? (attentionUnder(state, n.id) ?? 'expanded')
            : (p?.state ?? 'pending');
      lines.push(`  class ${mid(n.id)} ${CLASS[key]}`);
    }
  }
  return lines.join('\n');
}
