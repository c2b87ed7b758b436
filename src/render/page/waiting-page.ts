/**
 * "Waiting for people": every node of every run the person can see that waits for a person, oldest first, with
 * the counts per repository, the filters (repository, "I may act"), and per row the forms that act on that one
 * node (approve, approve a rerun with guidance, settle with what was checked, fail the run with a reason), each
 * bound to the node, its attempt and the graph hash shown. A control the person may not use is disabled with the
 * reason. Pure.
 */
import { subjectLabel } from '../../journal/run-id.js';
import { ago, type Html, html } from './html.js';
import { type Frame, pageDocument } from './layout.js';
import { LOCAL, type WaitingRow } from './waiting-model.js';

/** Whether the person may act on a row, or why not (from the same rules as the comment commands). */
export type MayAct = { ok: true } | { ok: false; reason: string; readOnly?: boolean };

export interface WaitingView {
  frame: Frame;
  now: string;
  /** Every repository listed (the person's), in order; the rows are the waiting nodes of all of them. */
  repos: string[];
  rows: WaitingRow[];
  may: (row: WaitingRow) => MayAct;
  filter: { repo?: string; mine: boolean };
  /** A random id per page render: a second submit of the same form is the same delivery, applied once. */
  formId: string;
  /** The web root for links to issues and pull requests (`https://github.com`); absent for local runs. */
  webUrl?: string;
  /** Repositories whose journals could not be read, with why. */
  problems?: { repo: string; why: string }[];
}

/** The link to a row's issue or pull request, or its label when there is no web root. */
export function subjectLink(
  row: Pick<WaitingRow, 'repo' | 'subject' | 'title'>,
  webUrl: string | undefined,
): Html {
  if (!row.subject) return html`<span class="muted">no issue</span>`;
  const label = `${row.subject.kind === 'pr' ? 'pull request' : 'issue'} #${row.subject.number}${row.title !== undefined ? `: ${row.title}` : ''}`;
  if (!webUrl || row.repo === 'local') return html`${subjectLabel(row.subject)}`;
  const path = row.subject.kind === 'pr' ? 'pull' : 'issues';
  return html`<a href="${webUrl}/${row.repo}/${path}/${row.subject.number}">${label}</a>`;
}

function runHref(base: string, repo: string, runId: string): string {
  return `${base}/run?repo=${encodeURIComponent(repo)}&run=${encodeURIComponent(runId)}`;
}

/** The hidden fields that bind a form to what the page showed. */
function bound(v: WaitingView, row: WaitingRow, action: string): Html {
  return html`<input type="hidden" name="csrf" value="${v.frame.csrf}"><input type="hidden" name="form_id" value="${v.formId}-${action}"><input type="hidden" name="repo" value="${row.repo}"><input type="hidden" name="run" value="${row.runId}"><input type="hidden" name="node" value="${row.node}"><input type="hidden" name="attempt" value="${row.attempt}"><input type="hidden" name="graph_hash" value="${row.graphHash}"><input type="hidden" name="waits" value="${row.kind}"><input type="hidden" name="action" value="${action}">`;
}

interface Control {
  action: 'approve' | 'approve-rerun' | 'settle' | 'fail-run';
  button: string;
  field: { name: string; label: string; required: boolean };
  danger?: true;
}

function controlsOf(row: WaitingRow): Control[] {
  const fail: Control = {
    action: 'fail-run',
    button: 'Fail the run',
    field: { name: 'reason', label: 'Why the run fails', required: true },
    danger: true,
  };
  if (row.kind === 'gate')
    return [
      {
        action: 'approve',
        button: 'Approve',
        field: { name: 'guidance', label: 'Guidance for the attempt (optional)', required: false },
      },
      fail,
    ];
  return [
    {
      action: 'approve-rerun',
      button: 'Approve a rerun',
      field: { name: 'guidance', label: 'Guidance for the next attempt (optional)', required: false },
    },
    {
      action: 'settle',
      button: 'Settle as done',
      field: { name: 'note', label: 'What you checked', required: true },
    },
    fail,
  ];
}

/** One row's forms: one per action, each posting on its own; disabled with the reason when the person may not. */
export function rowForms(v: WaitingView, row: WaitingRow, index: number): Html {
  const may = v.may(row);
  // Someone who may not act in the repository at all sees no control, only why.
  if (!may.ok && may.readOnly) return html`<p class="why-not">Read only: ${may.reason}</p>`;
  const forms = controlsOf(row).map((c) => {
    const id = `f${index}-${c.action}`;
    return html`<form method="post" action="${v.frame.base}/act">${bound(v, row, c.action)}<fieldset${may.ok ? '' : ' disabled'}><legend class="muted">${c.button} (${c.action})</legend>
<label for="${id}">${c.field.label}</label><textarea id="${id}" name="${c.field.name}" rows="2"${c.field.required ? ' required' : ''}></textarea>
<button type="submit"${c.danger ? html` class="danger"` : ''}>${c.button}</button></fieldset></form>`;
  });
  return html`${may.ok ? '' : html`<p class="why-not">You cannot act here: ${may.reason}</p>`}<div class="actions">${forms}</div>`;
}

function rowCard(v: WaitingView, row: WaitingRow, index: number): Html {
  const approvers = row.approvals.have.length
    ? row.approvals.have.map((a) => `@${a}`).join(', ')
    : 'nobody yet';
  return html`<article class="row" aria-labelledby="r${index}">
<h3 id="r${index}">${row.node}${row.repo === LOCAL ? '' : html` <span class="muted">in ${row.repo}</span>`}</h3>
<dl class="facts">
<dt>Why it waits</dt><dd>${row.why}</dd>
<dt>Waiting for</dt><dd><time datetime="${row.since}">${ago(row.since, v.now)}</time> (since ${row.since})</dd>
${row.repo === LOCAL ? '' : html`<dt>Issue or pull request</dt><dd>${subjectLink(row, v.webUrl)}</dd>`}
<dt>Run</dt><dd><a href="${runHref(v.frame.base, row.repo, row.runId)}">${row.runId}</a> (graph ${row.graphName})</dd>
<dt>Attempt</dt><dd>${row.attempt}</dd>
<dt>Who may approve</dt><dd>${row.policy}; approved by ${approvers}</dd>
<dt>${row.commandsFace === 'cli' ? 'In a terminal' : 'As a comment'}</dt><dd>${row.commands.map((c) => html`<code>${c}</code><br>`)}</dd>
</dl>
${row.failure ? html`<details><summary>Last failure</summary><pre>${row.failure}</pre></details>` : ''}
${row.report ? html`<details><summary>Escalation report</summary><pre>${row.report}</pre></details>` : ''}
${rowForms(v, row, index)}
</article>`;
}

function filters(v: WaitingView): Html {
  const options = v.repos.map(
    (r) => html`<option value="${r}"${v.filter.repo === r ? ' selected' : ''}>${r}</option>`,
  );
  return html`<form class="filters" method="get" action="${v.frame.base}/">
<div><label for="repo-filter">Repository</label><select id="repo-filter" name="repo"><option value="">all repositories</option>${options}</select></div>
<div><input type="checkbox" id="mine" name="mine" value="1"${v.filter.mine ? ' checked' : ''} style="width:auto"> <label for="mine">Only where I may act</label></div>
<button type="submit">Show</button></form>`;
}

/** Rows left by the filters. */
export function filtered(v: Pick<WaitingView, 'rows' | 'filter' | 'may'>): WaitingRow[] {
  return v.rows.filter(
    (r) => (!v.filter.repo || r.repo === v.filter.repo) && (!v.filter.mine || v.may(r).ok),
  );
}

/** The whole "Waiting for people" page. */
export function waitingPage(v: WaitingView): string {
  const counts = new Map<string, number>(v.repos.map((r) => [r, 0]));
  for (const r of v.rows) counts.set(r.repo, (counts.get(r.repo) ?? 0) + 1);
  const shown = filtered(v);
  const body = html`<h2>Waiting for people (${v.rows.length})</h2>
<ul class="counts" aria-label="Waiting nodes per repository">${[...counts].map(([repo, n]) => html`<li>${repo}: <strong>${n}</strong></li>`)}</ul>
${(v.problems ?? []).map((p) => html`<p class="notice error">${p.repo}: ${p.why}</p>`)}
${filters(v)}
${shown.length ? shown.map((r, i) => rowCard(v, r, i)) : html`<p>Nothing waits for a person${v.filter.repo || v.filter.mine ? ' under these filters' : ''}.</p>`}`;
  return pageDocument(v.frame, body);
}
