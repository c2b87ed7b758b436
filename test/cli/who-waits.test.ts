// Who a waiting node waits for, in the CLI's words (issue 45): the status table names who approved a held or
// escalated node so far, as it did for a gate and as the page does, and a node escalated at the repository's daily
// cost cap says so in its row and on the page (`interlock ui`), not "the run is at its budget" or an older
// attempt's failure. Through the CLI in-process on a local file, the model-based test's world (a $2 daily cap,
// `b` an agent spending $1 an attempt, `c` a gate two people approve).
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { startUi } from '../../src/cli/commands/ui.js';
import { pageWhos } from '../reliability/model-who.js';
import { CliWorld, worldRoot } from '../reliability/model-world.js';

const ROOT = worldRoot();
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

const RUN = 'm/issue-7';

async function world(): Promise<CliWorld & { run(...more: string[]): Promise<string> }> {
  const w = new CliWorld(ROOT);
  return Object.assign(w, {
    async run(...more: string[]) {
      const c = await w.cli([...more, '--run-id', RUN]);
      return c.out + c.err;
    },
  });
}

/** The row of `node` in `interlock status`'s table. */
async function row(w: CliWorld & { run(...more: string[]): Promise<string> }, node: string): Promise<string> {
  const out = await w.run('status');
  return out.split('\n').find((l) => l.startsWith(`${node} `) || l.startsWith(`${node}  `)) ?? out;
}

async function pageOf(w: CliWorld): Promise<string> {
  const quiet = { out: () => {}, err: () => {}, cwd: w.dir, env: w.env() };
  w.ui ??= await startUi(quiet, { dir: w.path('.interlock/runs'), port: 0, by: 'ann' });
  return (await fetch(w.ui.url)).text();
}

describe('who a node waits for, as the CLI shows it', () => {
  it('an escalated node approved by one of the two it needs names who approved it, in the table and on the page', async () => {
    const w = await world();
    try {
      await w.run('run', 'graph.yml', '--all');
      await w.run('approve', 'c', '--by', 'ann');
      await w.run('approve', 'c', '--by', 'bo');
      w.outcome('c', 'fail');
      await w.run('run', 'graph.yml', '--all');
      expect(await row(w, 'c')).toMatch(/escalated/);
      await w.run('approve-rerun', 'c', '--by', 'ann');
      const c = await row(w, 'c');
      expect(c).toMatch(/escalated .*\(approved by ann\)$/);
      const page = pageWhos(await pageOf(w)).find((r) => r.node === 'c');
      expect(page?.who).toEqual({ reason: 'failed', required: 2, approvedBy: ['ann'] });
    } finally {
      await w.cleanup();
    }
  });

  it("a node escalated at the daily cap says so in its row and on the page, not the run's budget", async () => {
    const w = await world();
    try {
      w.outcome('b', 'fail');
      await w.run('run', 'graph.yml', '--all');
      expect(await row(w, 'b')).toMatch(/escalated/);
      w.outcome('b', 'pass');
      // b needs two people (the model's world): the rerun is approved once both have.
      await w.run('approve-rerun', 'b', '--by', 'ann');
      await w.run('approve-rerun', 'b', '--by', 'bo');
      const out = await w.run('run', 'graph.yml', '--all');
      expect(out).toMatch(/daily cost cap/);
      expect(await row(w, 'b')).toMatch(/escalated .*⏸ at the repository's daily cost cap$/);
      const page = pageWhos(await pageOf(w)).find((r) => r.node === 'b');
      expect(page?.who.reason).toBe('daily-cap');
      expect(await pageOf(w)).toContain('escalated: the repository is at its daily cost cap');
    } finally {
      await w.cleanup();
    }
  });
});
