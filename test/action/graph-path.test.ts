// A journal names its graph's path, and anyone who can write the journal branch can change it: a step that
// resumes by run-id refuses a path outside the workspace (absolute, "..", a symlink out) and runs nothing.
import { existsSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGraph } from '../../src/graph/load/load.js';
import { JOURNAL_FORMAT } from '../../src/journal/events/events.js';
import { appendEvents, serializeJournal } from '../../src/journal/parse.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
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

/** A journal on the journal branch whose RunStarted names `path` as the graph. */
function plantJournal(runId: string, path: string): void {
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
  server.state
    .repo(FULL)
    .commitFiles(JOURNAL_BRANCH, { [`runs/${runId}.json`]: serializeJournal(journal) }, {}, { orphan: true });
}

describe('the graph path a journal names', () => {
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
      const runId = `demo/forged-${Math.abs(path.length)}-${reason.length}`;
      plantJournal(runId, path);
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
