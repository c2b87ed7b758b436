// A journal names its graph's path, and anyone who can write the journal's branch can change it: a step that
// resumes by run-id refuses a path outside the workspace (absolute, "..", a symlink out) and runs nothing, whether
// the run is on its own branch (what the action writes today) or on the journal branch of before. The forged
// journals are written by the git store's own writer, as anyone with its token could.
import { existsSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGraph } from '../../src/graph/load/load.js';
import { JOURNAL_FORMAT } from '../../src/journal/events/events.js';
import { appendEvents } from '../../src/journal/parse.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { GIT_LAYOUTS, type GitLayout, gitLayoutOf, seedGitJournal } from '../support/seed-journal.js';
import { FULL, JOURNAL_BRANCH, OWNER, REPO, workflowRun } from './world.js';

const outside = mkdtempSync(join(tmpdir(), 'interlock-outside-'));
const marker = join(outside, 'ran');
const GRAPH = `interlock: 1\nname: demo\nnodes:\n  - id: a\n    run: touch ${marker}\n`;
writeFileSync(join(outside, 'evil.yml'), GRAPH);

let server: GitHubServer;
beforeAll(async () => {
  server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
});
afterAll(async () => server?.close());

/** A journal whose RunStarted names `path` as the graph, written by the git store in `layout`. */
async function plantJournal(runId: string, path: string, layout: GitLayout): Promise<void> {
  const g = parseGraph({ path, text: GRAPH });
  const ref = { name: g.name, hash: g.hash, path };
  const journal = appendEvents(
    { format: JOURNAL_FORMAT, run_id: runId, graph: ref, events: [] },
    [
      {
        type: 'RunStarted',
        graph: ref,
        intent: 'workflow_dispatch',
        subject: 'main',
        runner: { kind: 'local', host: 'h', pid: 1 },
      },
    ],
    '2026-01-01T00:00:00.000Z',
  );
  await seedGitJournal(server, FULL, journal, layout, JOURNAL_BRANCH);
  expect(gitLayoutOf(server.state.repo(FULL), runId, JOURNAL_BRANCH)).toBe(layout);
}

describe.each(GIT_LAYOUTS)('the graph path a journal on the %s names', (layout) => {
  it.each([
    [
      'relative, out through ".."',
      (ws: string): string => relative(ws, join(outside, 'evil.yml')),
      'its ".." leads out of the workspace',
    ],
    ['absolute', (): string => join(outside, 'evil.yml'), 'it is absolute'],
    [
      'a symlink out',
      (ws: string): string => {
        symlinkSync(join(outside, 'evil.yml'), join(ws, 'link.yml'));
        return 'link.yml';
      },
      'it leads through a symlink to',
    ],
  ] as const)(
    '%s: is refused with the path and the reason, and nothing runs',
    async (_name, pathFor, reason) => {
      const ws = makeWorkspace({ 'README.md': 'x\n' });
      const path = pathFor(ws);
      const runId = `demo/${layout}/forged-${Math.abs(path.length)}-${reason.length}`;
      await plantJournal(runId, path, layout);
      const runner = 'runner-path';
      const r = await runStep({
        apiUrl: server.url,
        repository: FULL,
        workspace: ws,
        eventName: 'workflow_dispatch',
        payload: { inputs: { 'run-id': runId } },
        inputs: { 'run-id': runId },
        job: { runId: workflowRun(server.state.repo(FULL), [runner]), runner },
      });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(`graph path ${JSON.stringify(path)} is refused: ${reason}`);
      expect(existsSync(marker)).toBe(false);
    },
  );
});
