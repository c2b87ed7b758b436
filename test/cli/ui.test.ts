// `interlock ui` (issue 37): the maintainers' page for the local journals on 127.0.0.1, behind a random token, with
// the same actions as `interlock approve` and the rest.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningUi, startUi } from '../../src/cli/commands/ui.js';
import { main } from '../../src/cli/main.js';
import { formFields } from '../app/page-world.js';

let dir: string;
let ui: RunningUi | undefined;
const io = () => {
  const { GIT_DIR: _, ...env } = process.env;
  return { out: () => {}, err: () => {}, cwd: dir, env };
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'interlock-ui-'));
  execFileSync('git', ['init', '-q'], { cwd: dir });
});
afterEach(async () => {
  await ui?.close();
  ui = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const approvals = () =>
  (
    JSON.parse(readFileSync(join(dir, '.interlock/runs/hello.json'), 'utf8')) as {
      events: { type: string; approved_by?: string; guidance?: string }[];
    }
  ).events.filter((e) => e.type === 'NodeApproved');

describe('interlock ui', () => {
  it('serves the waiting gate behind its token and approves it once, as interlock approve would', async () => {
    writeFileSync(
      join(dir, 'hello.yml'),
      'interlock: 1\nname: hello\nnodes:\n  - id: publish\n    approval: before\n    run: "true"\n',
    );
    expect(await main(['run', 'hello.yml', '--all', '--quiet'], io())).toBe(3);
    ui = await startUi(io(), { dir: join(dir, '.interlock/runs'), port: 0, by: 'alice' });
    expect(ui.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/t\/[\w-]{32}\/$/);
    const origin = new URL(ui.url).origin;
    expect((await fetch(`${origin}/`)).status).toBe(404);
    expect((await fetch(`${origin}/t/wrong-token/`)).status).toBe(404);
    const html = await (await fetch(ui.url)).text();
    expect(html).toContain('approval before its first attempt (0 of 1 approval)');
    // A local run speaks the CLI's verbs, says what runs the node once approved, and has no GitHub-only facts.
    expect(html).toContain('<dt>In a terminal</dt>');
    expect(html).toContain('<code>interlock approve publish --run-id hello</code>');
    expect(html).toContain('then, to run it: interlock run hello.yml --run-id hello --all');
    expect(html).not.toMatch(/<code>\/(approve|fail-run)/);
    expect(html).not.toContain('Issue or pull request');
    expect(html).not.toContain('in local');
    const base = new URL(ui.url).pathname.replace(/\/$/, '');
    const fields = formFields(
      html.replaceAll(`${base}/act`, '/interlock/act'),
      'local',
      'publish',
      'approve',
    );
    fields.set('guidance', 'ship it');
    const post = () =>
      fetch(`${ui!.url}act`, { method: 'POST', body: fields, headers: { origin }, redirect: 'manual' });
    const stale = new URLSearchParams(fields);
    stale.set('waits', 'held');
    const refused = await fetch(`${ui.url}act`, {
      method: 'POST',
      body: stale,
      headers: { origin },
      redirect: 'manual',
    });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('this page is out of date');
    expect((await post()).status).toBe(303);
    expect((await post()).status).toBe(303);
    expect(approvals()).toEqual([expect.objectContaining({ approved_by: 'alice', guidance: 'ship it' })]);
    const noToken = new URLSearchParams(fields);
    noToken.delete('csrf');
    expect((await fetch(`${ui.url}act`, { method: 'POST', body: noToken, redirect: 'manual' })).status).toBe(
      403,
    );
  });
});

describe('interlock ui under a changed graph (issue 45)', () => {
  it('refuses a rerun in words the terminal takes, and writes nothing', async () => {
    const graph = (cmd: string) =>
      `interlock: 1\nname: g\nnodes:\n  - id: a\n    run: ${cmd}\n    validates:\n      - file: right.txt\n`;
    writeFileSync(join(dir, 'g.yml'), graph('touch wrong.txt'));
    expect(await main(['run', 'g.yml', '--all', '--quiet', '--by', 'alice'], io())).toBe(3);
    writeFileSync(join(dir, 'g.yml'), graph('touch right.txt'));
    const before = readFileSync(join(dir, '.interlock/runs/g.json'));
    ui = await startUi(io(), { dir: join(dir, '.interlock/runs'), port: 0, by: 'alice' });
    const origin = new URL(ui.url).origin;
    const html = await (await fetch(ui.url)).text();
    expect(html).toContain('Waiting for people (1)');
    // The row's own commands in a terminal allow the change too.
    expect(html).toContain('interlock approve-rerun a --run-id g --allow-graph-change');
    const base = new URL(ui.url).pathname.replace(/\/$/, '');
    const fields = formFields(
      html.replaceAll(`${base}/act`, '/interlock/act'),
      'local',
      'a',
      'approve-rerun',
    );
    const r = await fetch(`${ui.url}act`, {
      method: 'POST',
      body: fields,
      headers: { origin },
      redirect: 'manual',
    });
    expect(r.status).toBe(409);
    const text = await r.text();
    expect(text).toContain('the graph changed since the run started');
    expect(text).toContain('interlock approve-rerun a --run-id g --allow-graph-change');
    expect(readFileSync(join(dir, '.interlock/runs/g.json')).equals(before)).toBe(true);
  });
});
