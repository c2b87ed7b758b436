import type { Graph } from '../graph/model.js';
import type { RunState } from '../journal/fold.js';
import { statusMarkdown, statusMermaid } from './status.js';
import { statusWord } from './words.js';

/** The hidden marker that finds a run's progress comment. */
export function progressMarker(runId: string): string {
  return `<!-- interlock:progress ${runId} -->`;
}

/** The status table and the run's diagram, as lines: the diagram shown, or folded into a `<details>`. */
export function statusBlock(graph: Graph, state: RunState, opts: { diagram: 'shown' | 'folded' }): string[] {
  const diagram = ['```mermaid', statusMermaid(graph, state), '```'];
  return [
    statusMarkdown(graph, state),
    '',
    ...(opts.diagram === 'folded'
      ? ['<details><summary>Diagram</summary>', '', ...diagram, '', '</details>']
      : diagram),
  ];
}

/** Markdown commands that settle a held or escalated node, for a comment. */
export function settleCommands(node: string, runId: string, several: boolean): string {
  const id = several ? ` ${runId}` : '';
  return [
    '```',
    `/approve-rerun ${node}${id}`,
    `/settle ${node} <what you checked>`,
    '/fail-run <reason>',
    '```',
  ].join('\n');
}

/** The escalation report in Markdown. */
export function reportMarkdown(state: RunState, node: string): string {
  const p = state.nodes.get(node);
  const report = p?.report;
  if (!report) return '';
  const rows = report.attempted.map((a) => {
    const f = report.failed.find((x) => x.attempt === a.attempt);
    const why = f ? f.failures.map((x) => `${x.check}: ${x.message}`).join('; ') : '';
    // Failures quote what checks observed (untrusted text): no @mention that notifies.
    return `| ${a.attempt} | ${a.approach} | ${a.work.replace(/\|/g, '\\|').replace(/\n/g, ' ')} | ${why.replace(/\|/g, '\\|').replace(/\n/g, ' ').replace(/@/g, '@\u200b')} |`;
  });
  return [
    '| attempt | approach | what was attempted | what failed and why |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    `**Approaches tried:** ${report.approaches_tried.join(', ')}`,
    '',
    `**What is needed:** ${report.needed}`,
  ].join('\n');
}

/** The single progress comment on the subject, updated in place. */
export function progressComment(graph: Graph, state: RunState, links: { workflowRun?: string }): string {
  const cp = state.checkpoint;
  const lines = [
    progressMarker(cp.run_id),
    `### interlock · \`${cp.run_id}\` · ${statusWord(cp.status)}`,
    '',
    ...statusBlock(graph, state, { diagram: 'folded' }),
  ];
  for (const n of cp.held_nodes) {
    lines.push(
      '',
      `**\`${n}\` is held**: its attempt was interrupted and may have partly run. Check, then comment one of:`,
      '',
      settleCommands(n, cp.run_id, false),
    );
  }
  for (const n of cp.escalated_nodes) {
    lines.push(
      '',
      `**\`${n}\` is escalated** after its last allowed attempt failed.`,
      '',
      reportMarkdown(state, n),
      '',
      settleCommands(n, cp.run_id, false),
    );
  }
  if (links.workflowRun) lines.push('', `<sub>last step: ${links.workflowRun}</sub>`);
  return lines.join('\n');
}

/** The comment posted once when a node is held or escalated: what happened and the exact commands. */
export function attentionComment(state: RunState, node: string, runId: string): string {
  const p = state.nodes.get(node);
  const held = p?.state === 'held';
  const head = held
    ? `⚠️ **interlock: \`${node}\` (attempt ${p?.attempts}) was interrupted and is held.** It is \`replay: never\`: its attempt may have partly run, so it will not run again until a person decides.`
    : `🛑 **interlock: \`${node}\` is escalated.** Its last allowed attempt failed.`;
  return [
    `<!-- interlock:attention ${runId} ${node} ${p?.attempts ?? 0} -->`,
    head,
    '',
    held ? '' : reportMarkdown(state, node),
    '',
    'Comment one of these, on a line of its own (people with write access):',
    '',
    settleCommands(node, runId, false),
    '',
    `Run \`${runId}\`.`,
  ]
    .filter((l, i, a) => !(l === '' && a[i - 1] === ''))
    .join('\n');
}

/** The job summary: table, diagram, and what to do next. */
export function jobSummary(graph: Graph, state: RunState, headline: string): string {
  const cp = state.checkpoint;
  return [
    `## interlock · ${cp.run_id}`,
    '',
    headline,
    '',
    `Run status: **${cp.status}** · graph \`${graph.name}\` (\`${cp.graph.hash.slice(0, 19)}…\`)`,
    '',
    statusMarkdown(graph, state),
    '',
    '```mermaid',
    statusMermaid(graph, state),
    '```',
    '',
  ].join('\n');
}
