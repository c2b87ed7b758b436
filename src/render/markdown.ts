import type { Graph } from '../graph/model.js';
import type { EscalationReport } from '../journal/events/fields.js';
import { expandedNodes } from '../journal/reducers/instances.js';
import type { RunState } from '../journal/state.js';
import { throughDoor } from './door.js';
import { failureOutputMarkdown } from './failure-output.js';
import { approveRerunCommand, failRunCommand, settleCommand } from './next-commands.js';
import { statusMarkdown, statusMermaid } from './status.js';
import { timelineBlock } from './timeline/markdown.js';
import type { Timeline } from './timeline/model.js';
import { budgetReportMarkdown, usageLine } from './usage/words.js';
import { statusWord } from './words.js';

/** The hidden marker that finds a run's progress comment. */
export function progressMarker(runId: string): string {
  return `<!-- interlock:progress ${runId} -->`;
}

/** The status table and the run's diagram, as lines: the diagram shown, or folded into a `<details>`. */
export function statusBlock(
  graph: Graph,
  state: RunState,
  opts: { diagram: 'shown' | 'folded'; secrets?: readonly string[] },
): string[] {
  const diagram = ['```mermaid', statusMermaid(graph, state), '```'];
  return [
    statusMarkdown(graph, state, opts.secrets),
    '',
    ...(opts.diagram === 'folded'
      ? ['<details><summary>Diagram</summary>', '', ...diagram, '', '</details>']
      : diagram),
  ];
}

/** A line and a blank line after it, or nothing for an empty line. */
function withBlank(line: string): string[] {
  return line ? [line, ''] : [];
}

/** Why a node is escalated, after its name: its last attempt failed, or the run was at its budget. */
function escalatedWhy(state: RunState, node: string): string {
  const p = state.nodes.get(node);
  if (p?.daily_cap_escalated) return 'instead of being dispatched: the repository is at its daily cost cap';
  return p?.budget_escalated
    ? 'instead of being dispatched: the run is at its budget'
    : 'after its last allowed attempt failed';
}

/** The commands a person may give a held or escalated node (approve a rerun, settle, fail the run), for a comment. */
function heldNodeCommands(node: string, runId: string, several: boolean): string {
  const run = { runId, several };
  return [
    '```',
    approveRerunCommand('comment', node, run),
    settleCommand('comment', node, run),
    failRunCommand('comment', run),
    '```',
  ].join('\n');
}

/** A report's cell or line: node text (what was attempted, what failed, outputs) through the door. */
const REPORT_MAX = 1000;

/** The escalation report in Markdown. */
function reportMarkdown(state: RunState, node: string, secrets: readonly string[] = []): string {
  const p = state.nodes.get(node);
  const report = p?.report;
  if (!report) return '';
  const door = (t: string) => throughDoor(t, 'line', { secrets, max: REPORT_MAX });
  const needed = `**What is needed:** ${door(report.needed)}`;
  if (report.budget) return [...budgetReportMarkdown(report.budget), '', needed].join('\n');
  if (report.cycles) return cyclesMarkdown(report.cycles, needed, door);
  const rows = report.attempted.map((a) => {
    const f = report.failed.find((x) => x.attempt === a.attempt);
    const why = f ? f.failures.map((x) => `${x.check}: ${x.message}`).join('; ') : '';
    return `| ${a.attempt} | ${door(a.approach)} | ${door(a.work)} | ${door(why)} |`;
  });
  const last = report.failed[report.failed.length - 1];
  const output = last ? failureOutputMarkdown(node, last.attempt, last.failures, secrets) : [];
  return [
    '| attempt | approach | what was attempted | what failed and why |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    ...(output.length ? [...output, ''] : []),
    `**Approaches tried:** ${door(report.approaches_tried.join(', '))}`,
    '',
    needed,
  ].join('\n');
}

/** A loop's escalation (issue 28): each cycle's outcome, then what is needed. Outputs are untrusted text. */
function cyclesMarkdown(
  cycles: NonNullable<EscalationReport['cycles']>,
  needed: string,
  cell: (t: string) => string,
): string {
  const rows = cycles.map((c) => {
    const outputs = Object.entries(c.outputs).map(([k, v]) => `${k}=${v}`);
    return `| ${c.cycle} | ${c.attempt} | ${cell(outputs.join(' ') || 'none')} | ${cell(c.until)} |`;
  });
  return ['| cycle | attempt | outputs | until |', '| --- | --- | --- | --- |', ...rows, '', needed].join(
    '\n',
  );
}

/** The single progress comment on the subject, updated in place. */
export function progressComment(
  graph: Graph,
  state: RunState,
  links: { workflowRun?: string; timeline?: Timeline; secrets?: readonly string[] },
): string {
  const cp = state.checkpoint;
  const secrets = links.secrets ?? [];
  const lines = [
    progressMarker(cp.run_id),
    `### interlock · \`${cp.run_id}\` · ${statusWord(cp.status)}`,
    '',
    ...withBlank(usageLine(graph, state)),
    ...statusBlock(graph, state, { diagram: 'folded', secrets }),
    ...(links.timeline ? ['', ...timelineBlock(links.timeline, { folded: true, secrets })] : []),
  ];
  for (const n of cp.held_nodes) {
    lines.push(
      '',
      `**\`${n}\` is held**: its attempt was interrupted and may have partly run. Check, then comment one of:`,
      '',
      heldNodeCommands(n, cp.run_id, false),
    );
  }
  for (const n of cp.escalated_nodes) {
    lines.push(
      '',
      `**\`${n}\` is escalated** ${escalatedWhy(state, n)}.`,
      '',
      reportMarkdown(state, n, secrets),
      '',
      heldNodeCommands(n, cp.run_id, false),
    );
  }
  if (links.workflowRun) lines.push('', `<sub>last step: ${links.workflowRun}</sub>`);
  return lines.join('\n');
}

/** The comment posted once when a node is held or escalated: what happened and the exact commands. */
export function attentionComment(
  state: RunState,
  node: string,
  runId: string,
  secrets: readonly string[] = [],
): string {
  const p = state.nodes.get(node);
  const held = p?.state === 'held';
  const head = held
    ? `⚠️ **interlock: \`${node}\` (attempt ${p?.attempts}) was interrupted and is held.** It is \`replay: never\`: its attempt may have partly run, so it will not run again until a person decides.`
    : p?.daily_cap_escalated
      ? `🛑 **interlock: \`${node}\` is escalated.** It was not dispatched: the repository is at its daily cost cap.`
      : p?.budget_escalated
        ? `🛑 **interlock: \`${node}\` is escalated.** It was not dispatched: the run is at its budget.`
        : `🛑 **interlock: \`${node}\` is escalated.** Its last allowed attempt failed.`;
  return [
    `<!-- interlock:attention ${runId} ${node} ${p?.attempts ?? 0} -->`,
    head,
    '',
    held ? '' : reportMarkdown(state, node, secrets),
    '',
    'Comment one of these, on a line of its own (people with write access):',
    '',
    heldNodeCommands(node, runId, false),
    '',
    `Run \`${runId}\`.`,
  ]
    .filter((l, i, a) => !(l === '' && a[i - 1] === ''))
    .join('\n');
}

/** The output excerpts of each node's last failed attempt, for nodes not completed. */
function failedOutputs(graph: Graph, state: RunState, secrets: readonly string[]): string[] {
  // A for_each node's instances (issue 28) follow it, as in the checkpoint's lists.
  return expandedNodes(graph.nodes, state.nodes).flatMap((n) => {
    const p = state.nodes.get(n.id);
    if (!p || p.state === 'completed' || !p.last_failures.length) return [];
    const blocks = failureOutputMarkdown(n.id, p.attempts, p.last_failures, secrets);
    return blocks.length ? [...blocks, ''] : [];
  });
}

/** The comment posted once when an attempt passes a soft bound: it goes on; a person may stop the run or wait. */
export function overdueComment(
  runId: string,
  node: string,
  attempt: number,
  message: string,
  secrets: readonly string[] = [],
): string {
  return [
    `<!-- interlock:overdue ${runId} ${node} ${attempt} -->`,
    `⏰ **interlock: \`${node}\` (attempt ${attempt}) is overdue.** ${throughDoor(message, 'line', { secrets, max: REPORT_MAX })}`,
    '',
    'Nothing is rerun or stopped. To stop the run, comment on a line of its own (people with write access):',
    '',
    '```',
    '/fail-run <reason>',
    '```',
    '',
    `Run \`${runId}\`.`,
  ].join('\n');
}

/**
 * The job summary: table, diagram, output of the failed attempts, and what to do next. The headline is the step's
 * message, which quotes what failed: it passes the door too.
 */
export function jobSummary(
  graph: Graph,
  state: RunState,
  headline: string,
  opts: { timeline?: Timeline | undefined; secrets?: readonly string[] } = {},
): string {
  const cp = state.checkpoint;
  const { timeline, secrets = [] } = opts;
  return [
    `## interlock · ${cp.run_id}`,
    '',
    throughDoor(headline, 'prose', { secrets, max: REPORT_MAX }),
    '',
    `Run status: **${cp.status}** · graph \`${graph.name}\` (\`${cp.graph.hash.slice(0, 19)}…\`)`,
    '',
    ...withBlank(usageLine(graph, state)),
    statusMarkdown(graph, state, secrets),
    '',
    ...failedOutputs(graph, state, secrets),
    '```mermaid',
    statusMermaid(graph, state),
    '```',
    '',
    ...(timeline ? ['### Timeline', '', ...timelineBlock(timeline, { folded: false, secrets }), ''] : []),
  ].join('\n');
}
