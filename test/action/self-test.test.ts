// What .github/workflows/self-test.yml does on GitHub, done as a runner does it against the local GitHub: the
// bundle runs .github/interlock/self-test.yml twice with the workflow's inputs, then the workflow's own check
// (scripts/verify-self-test.mjs) reads the journal branch and the step outputs. So the first push to GitHub is not
// the first time the self-test's expectations meet the real Action.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { makeWorkspace, REPO_ROOT, runStep, type StepOptions } from '../support/action-process.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { FULL, OWNER, REPO, workflowRun } from './world.js';

const GRAPH = '.github/interlock/self-test.yml';

let server: GitHubServer;
beforeAll(async () => {
  server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
});
afterAll(async () => server?.close());

/** The `with:` of the workflow's interlock steps, with its expressions filled in as GitHub would. */
function workflowInputs(runId: string): Record<string, string> {
  const wf = parse(readFileSync(join(REPO_ROOT, '.github/workflows/self-test.yml'), 'utf8')) as {
    jobs: {
      'self-test': {
        env: Record<string, string>;
        steps: Array<{ uses?: string; with?: Record<string, string> }>;
      };
    };
  };
  const job = wf.jobs['self-test'];
  const step = job.steps.find((s) => s.uses === './');
  const env: Record<string, string> = { RUN_ID: runId, JOURNAL_BRANCH: job.env.JOURNAL_BRANCH! };
  return Object.fromEntries(
    Object.entries(step!.with!).map(([k, v]) => [
      k,
      String(v).replace(/\$\{\{ env\.(\w+) \}\}/g, (_, n) => env[n]!),
    ]),
  );
}

describe('the self-test workflow, run against the local GitHub', () => {
  it('passes its own check: the run completes, stays completed, and the journal says so', async () => {
    const repo = server.state.repo(FULL);
    const runner = 'runner-self-test';
    const runId = workflowRun(repo, [runner]);
    const id = `self-test/run-${runId}-1`;
    const inputs = workflowInputs(id);
    expect(inputs).toMatchObject({ graph: GRAPH, node: 'all', 'run-id': id });
    const ws = makeWorkspace({ [GRAPH]: readFileSync(join(REPO_ROOT, GRAPH), 'utf8') });
    const step: StepOptions = {
      apiUrl: server.url,
      repository: FULL,
      workspace: ws,
      eventName: 'push',
      payload: { ref: 'refs/heads/main', repository: { full_name: FULL } },
      inputs,
      job: { runId, runner },
    };
    const first = await runStep(step);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const again = await runStep(step);
    expect(again.code, again.stdout + again.stderr).toBe(0);

    const journal = join(ws, 'journal.json');
    writeFileSync(journal, repo.readText(`runs/${id}.json`, `${inputs['journal-branch']!}-runs/${id}`) ?? '');
    const check = (env: Record<string, string>) =>
      spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/verify-self-test.mjs'), journal], {
        env: { PATH: process.env.PATH, ...env },
        encoding: 'utf8',
      });
    const outputs = {
      STATUS: first.outputs.status!,
      CHECKPOINT: first.outputs.checkpoint!,
      RESUMED_STATUS: again.outputs.status!,
    };
    console.log(
      JSON.stringify({
        s: outputs.STATUS,
        r: outputs.RESUMED_STATUS,
        c: JSON.parse(outputs.CHECKPOINT).status,
      }),
    );
    const passed = check(outputs);
    expect(passed.stdout + passed.stderr).toMatch(/as expected/);
    expect(passed.status).toBe(0);
    // The check is not a formality: a second run that dispatched again would fail it.
    expect(check({ ...outputs, RESUMED_STATUS: 'completed' }).status).toBe(1);
  });
});
