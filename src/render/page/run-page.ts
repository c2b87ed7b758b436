/**
 * The page of one run: the graph drawn as SVG, the timeline (`timelineSvg`, src/render/timeline/svg.ts) and each
 * attempt with its start, end, outcome and workflow run, the events with who did what, usage and cost, and the
 * run's waiting nodes with their forms. Pure.
 */

import type { JournalEvent } from '../../journal/events/events.js';
import { subjectOfRun } from '../../journal/run-id.js';
import { throughDoor, valueWithoutSecrets } from '../door.js';
import { timelineSvg } from '../timeline/svg.js';
import { type MeteredAttempt, meteredAttempts, recordingWhere } from '../usage/metered.js';
import { usageCell, usageLine } from '../usage/words.js';
import { graphSvg } from './graph-svg.js';
import { type Html, html, raw } from './html.js';
import { pageDocument } from './layout.js';
import type { PageRun } from './waiting-model.js';
import { rowForms, subjectLink, type WaitingView } from './waiting-page.js';

/** One attempt: when it started and ended, how, and where it ran. */
interface AttemptLine {
  node: string;
  attempt: number;
  started: string;
  ended?: string;
  outcome: string;
  workflowRunId?: number;
}

const ENDS = new Set(['NodeRecorded', 'NodeFailed', 'NodeInterrupted']);

/** The attempts of a run in the order they started. */
function attemptLines(events: readonly JournalEvent[]): AttemptLine[] {
  const lines: AttemptLine[] = [];
  const open = new Map<string, AttemptLine>();
  for (const e of events) {
    if (e.type === 'NodeDispatched') {
      const line: AttemptLine = { node: e.node, attempt: e.attempt, started: e.at, outcome: 'running' };
      if (e.runner.workflow_run_id !== undefined) line.workflowRunId = e.runner.workflow_run_id;
      lines.push(line);
      open.set(`${e.node}#${e.attempt}`, line);
    } else if (ENDS.has(e.type) && 'node' in e && 'attempt' in e) {
      const line = open.get(`${e.node}#${e.attempt}`);
      if (!line) continue;
      line.ended = e.at;
      line.outcome =
        e.type === 'NodeRecorded' ? 'completed' : e.type === 'NodeFailed' ? 'failed' : 'interrupted';
    }
  }
  return lines;
}

/** Who an event names as its actor, if any. */
function actorOf(e: JournalEvent): string | undefined {
  switch (e.type) {
    case 'RunStarted':
      return e.started_by;
    case 'RerunApproved':
    case 'NodeApproved':
    case 'RerunFromApproved':
      return e.approved_by;
    case 'NodeRecorded':
      return e.recorded_by;
    case 'RunFailed':
    case 'RunCompleted':
    case 'GraphChangeAllowed':
      return e.by;
    case 'NodeInterrupted':
      return e.by;
    default:
      return undefined;
  }
}

/** What an event says beyond its type: a reason, a note, guidance (node text: through the door, escaped by the page). */
function detailOf(e: JournalEvent, secrets: readonly string[]): string {
  const parts: string[] = [];
  if ('node' in e && typeof e.node === 'string')
    parts.push(`${e.node}${'attempt' in e ? ` #${e.attempt}` : ''}`);
  if ('reason' in e && typeof e.reason === 'string') parts.push(e.reason);
  if ('note' in e && typeof e.note === 'string') parts.push(`checked: ${e.note}`);
  if ('guidance' in e && typeof e.guidance === 'string') parts.push(`guidance: ${e.guidance}`);
  if (e.type === 'NodeFailed') parts.push(e.failures.map((f) => `${f.check}: ${f.message}`).join('; '));
  return throughDoor(parts.join(' · '), 'plain', { secrets });
}

function duration(from: string, to: string | undefined): string {
  if (!to) return '';
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : '';
}

function workflowLink(repo: string, id: number | undefined, webUrl: string | undefined): Html | string {
  if (id === undefined) return '';
  if (!webUrl || repo === 'local') return String(id);
  return html`<a href="${webUrl}/${repo}/actions/runs/${id}">run ${id}</a>`;
}

/** Where an attempt's model exchange is kept (issue 48), and what the proxy metered against what the agent said. */
function modelCalls(m: MeteredAttempt | undefined): Html | string {
  if (!m) return '';
  const r = m.recording;
  return html`${r ? html`${r.calls} kept in <code>${recordingWhere(r)}</code>, sha256 <code>${r.sha256.slice(0, 12)}&hellip;</code>` : ''}${r && m.difference ? html`<br>` : ''}${m.difference ? html`metered differs from reported: ${m.difference}` : ''}`;
}

function timeline(run: PageRun, webUrl: string | undefined): Html {
  const lines = attemptLines(run.journal.events);
  if (!lines.length) return html`<p>No attempt yet.</p>`;
  const metered = new Map(meteredAttempts(run.journal.events).map((m) => [`${m.node}#${m.attempt}`, m]));
  return html`<div class="scroll"><table><caption class="muted">Attempts in the order they started; model calls: what the key proxy kept of each and where</caption>
<thead><tr><th scope="col">Node</th><th scope="col">Attempt</th><th scope="col">Started</th><th scope="col">Took</th><th scope="col">Outcome</th><th scope="col">Workflow run</th><th scope="col">Model calls</th></tr></thead>
<tbody>${lines.map((l) => html`<tr><td>${l.node}</td><td>${l.attempt}</td><td><time datetime="${l.started}">${l.started}</time></td><td>${duration(l.started, l.ended)}</td><td>${l.outcome}</td><td>${workflowLink(run.repo, l.workflowRunId, webUrl)}</td><td>${modelCalls(metered.get(`${l.node}#${l.attempt}`))}</td></tr>`)}</tbody></table></div>`;
}

function events(run: PageRun): Html {
  return html`<div class="scroll"><table><thead><tr><th scope="col">#</th><th scope="col">When</th><th scope="col">Event</th><th scope="col">Who</th><th scope="col">What</th></tr></thead>
<tbody>${run.journal.events.map((e) => html`<tr><td>${e.seq}</td><td><time datetime="${e.at}">${e.at}</time></td><td>${e.type}</td><td>${actorOf(e) ?? ''}</td><td>${detailOf(e, run.secrets ?? [])}</td></tr>`)}</tbody></table></div>`;
}

function usage(run: PageRun): Html {
  const u = run.state.checkpoint.usage;
  const byNode = Object.entries(u.by_node ?? {});
  return html`<p>${usageLine(run.graph, run.state) || `wall time ${(u.wall_ms / 1000).toFixed(1)} s, no agent usage reported`}</p>
${byNode.length ? html`<div class="scroll"><table><thead><tr><th scope="col">Node</th><th scope="col">Usage</th></tr></thead><tbody>${byNode.map(([n, x]) => html`<tr><td>${n}</td><td>${usageCell(x)}</td></tr>`)}</tbody></table></div>` : ''}`;
}

/** The run page; `view` carries the frame, the rules for the forms and this run's waiting rows. */
export function runPage(shown: PageRun, view: WaitingView): string {
  // The timeline and the events draw the journal whole: it passes the door once, here (the page escapes it).
  const run = { ...shown, journal: valueWithoutSecrets(shown.journal, shown.secrets) };
  const cp = run.state.checkpoint;
  const about = subjectOfRun(run.journal.run_id);
  const subject = {
    repo: run.repo,
    ...(about ? { subject: about } : {}),
    ...(run.title !== undefined ? { title: run.title } : {}),
  };
  const body = html`<h2>Run ${run.journal.run_id} <span class="muted">in ${run.repo}</span></h2>
<dl class="facts"><dt>Status</dt><dd>${cp.status}${cp.ended ? ` (${cp.ended.type} by ${cp.ended.by}: ${throughDoor(cp.ended.reason, 'plain', { secrets: run.secrets ?? [] })})` : ''}</dd>
<dt>Graph</dt><dd>${run.graph.name} <code>${run.state.accepted_hash.slice(0, 19)}&hellip;</code></dd>
<dt>Issue or pull request</dt><dd>${subjectLink(subject, view.webUrl)}</dd>
<dt>Started by</dt><dd>${run.state.started?.started_by ?? 'unknown'}</dd></dl>
<h3>Graph</h3><figure>${raw(graphSvg(run.graph, run.state))}<figcaption class="muted">Each box is a node, its state written under its name.</figcaption></figure>
<h3>Waiting for people (${view.rows.length})</h3>
${view.rows.length ? view.rows.map((r, i) => html`<section class="row" aria-labelledby="w${i}"><h4 id="w${i}">${r.node}: ${r.why}</h4>${r.failure ? html`<details><summary>Last failure</summary><pre>${r.failure}</pre></details>` : ''}${r.report ? html`<details><summary>Escalation report</summary><pre>${r.report}</pre></details>` : ''}${rowForms(view, r, i)}</section>`) : html`<p>Nothing in this run waits for a person.</p>`}
<h3>Timeline</h3><figure><div class="scroll">${raw(timelineSvg(run.journal))}</div><figcaption class="muted">Each attempt a bar from its dispatch to its end, coloured by outcome; waits for people as pale spans.</figcaption></figure>${timeline(run, view.webUrl)}
<h3>Usage and cost</h3>${usage(run)}
<h3>Events</h3>${events(run)}`;
  return pageDocument({ ...view.frame, title: `run ${run.journal.run_id}` }, body);
}
