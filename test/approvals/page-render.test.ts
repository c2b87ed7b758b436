// The maintainers' page, pure (issue 37): which nodes wait for a person and why, oldest first, and the HTML,
// escaped everywhere: a hostile node id, output, guidance or run id is shown as text.
import { describe, expect, it } from 'vitest';
import { graphSvg } from '../../src/render/page/graph-svg.js';
import { escapeHtml, html } from '../../src/render/page/html.js';
import { runPage } from '../../src/render/page/run-page.js';
import { type PageRun, waitingRows } from '../../src/render/page/waiting-model.js';
import { filtered, type WaitingView, waitingPage } from '../../src/render/page/waiting-page.js';
import { graph, graphText, Sim } from '../core/sim.js';

const g = graph(
  graphText(`  - id: build
    run: ./build.sh
  - id: publish
    depends_on: [build]
    approval: before
    approvals:
      required: 2
    run: ./publish.sh
`),
);

function gateRun(): Sim {
  const sim = new Sim(g);
  sim.dispatch('build');
  sim.succeed('build');
  sim.step();
  return sim;
}

function heldRun(): Sim {
  const sim = new Sim(g);
  sim.dispatch('build');
  sim.recover();
  return sim;
}

const asRun = (repo: string, sim: Sim, runId: string): PageRun => ({
  repo,
  journal: { ...sim.journal, run_id: runId },
  graph: g,
  state: sim.state,
  approvals: { permission: 'write', approvers: [], required: 1 },
});

function view(runs: PageRun[], may: WaitingView['may'] = () => ({ ok: true })): WaitingView {
  return {
    frame: { title: 'Waiting for people', base: '/interlock', user: 'alice', csrf: 'tok' },
    now: '2030-01-01T00:00:00Z',
    repos: ['acme/a', 'acme/b'],
    rows: waitingRows(runs),
    may,
    filter: { mine: false },
    formId: 'abc',
    webUrl: 'https://github.com',
  };
}

describe('the waiting rows: every node that waits for a person, oldest first', () => {
  it('a gate before its first attempt and a held node, with why, attempt, policy and the comment command', () => {
    const rows = waitingRows([asRun('acme/a', gateRun(), 'g/issue-1'), asRun('acme/b', heldRun(), 'g/pr-2')]);
    expect(rows.map((r) => [r.repo, r.node, r.kind, r.attempt])).toEqual([
      ['acme/b', 'build', 'held', 1],
      ['acme/a', 'publish', 'gate', 0],
    ]);
    const gate = rows[1]!;
    expect(gate.why).toBe('approval before its first attempt (0 of 2 approvals)');
    expect(gate.policy).toBe('needs 2 approvals; write permission on the repository');
    expect(gate.commands[0]).toBe('/approve publish g/issue-1');
    expect(gate.subject).toEqual({ kind: 'issue', number: 1 });
    expect(rows[0]!.why).toMatch(/^held: attempt 1 was interrupted/);
  });

  it('an ended run waits for nobody', () => {
    const sim = gateRun().failRun();
    expect(waitingRows([asRun('acme/a', sim, 'g/issue-1')])).toEqual([]);
  });

  it('filters by repository and by "I may act"', () => {
    const v = view([asRun('acme/a', gateRun(), 'g/issue-1'), asRun('acme/b', heldRun(), 'g/pr-2')], (r) =>
      r.repo === 'acme/a' ? { ok: true } : { ok: false, reason: 'read only' },
    );
    expect(filtered({ ...v, filter: { repo: 'acme/b', mine: false } }).map((r) => r.repo)).toEqual([
      'acme/b',
    ]);
    expect(filtered({ ...v, filter: { mine: true } }).map((r) => r.repo)).toEqual(['acme/a']);
  });
});

describe('the pages are escaped everywhere', () => {
  it('html escapes every interpolation', () => {
    expect(html`<p>${'<script>alert(1)</script>'}</p>`.text).toBe(
      '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>',
    );
    expect(escapeHtml(`"'&\``)).toBe('&quot;&#39;&amp;&#96;');
  });

  it('a hostile failure output, run id and reason reach the page as text', () => {
    const sim = new Sim(g);
    sim.dispatch('build');
    sim.fail('build', [
      { check: 'exit', message: '<img src=x onerror=alert(1)>', excerpt: '<script>x()</script>' },
    ]);
    const run = asRun('acme/a', heldRun(), 'g/issue-1');
    run.journal = { ...run.journal, events: [...run.journal.events] };
    const hostile = asRun('acme/a', gateRun(), 'g/issue-1');
    const page = waitingPage(
      view([hostile, { ...run, journal: { ...run.journal, run_id: '<b>x</b>/issue-3' } }]),
    );
    expect(page).not.toContain('<b>x</b>');
    expect(page).toContain('&lt;b&gt;x&lt;/b&gt;/issue-3');
    const failing = asRun('acme/a', sim, 'g/issue-9');
    const runHtml = runPage(failing, { ...view([failing]), rows: waitingRows([failing]) });
    expect(runHtml).not.toMatch(/<script>x|<img src=x/);
    expect(runHtml).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('a disabled control says why, and there is no form the person may use', () => {
    const page = waitingPage(
      view([asRun('acme/a', gateRun(), 'g/issue-1')], () => ({
        ok: false,
        reason: '@bob has read permission',
      })),
    );
    expect(page).toContain('You cannot act here: @bob has read permission');
    expect(page).toContain('<fieldset disabled>');
    expect(page).not.toMatch(/<fieldset>/);
    // Attributes the code writes are markup, not escaped text.
    expect(page).toContain('<button type="submit" class="danger">Fail the run</button>');
  });

  it('the graph is SVG with each state written', () => {
    const svg = graphSvg(g, gateRun().state);
    expect(svg).toMatch(/^<svg /);
    expect(svg).toContain('>awaiting approval<');
    expect(svg).toContain('>completed<');
  });
});
