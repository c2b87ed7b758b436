// The action-process helper removes its folders: a step's runner folder (RUNNER_TEMP, its output and state
// files) once the step ended and was read, and the workspaces it made when the test process exits. A reliability
// run starts thousands of steps; their folders no longer wait for the run's end to go.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { makeWorkspace, runStep } from './action-process.js';

it("a step's runner folder is read, then removed", async () => {
  // A stand-in for dist/index.js that writes an output and a state line as the Action does.
  const dist = makeWorkspace({
    'index.js':
      "const fs = require('node:fs');\n" +
      "fs.appendFileSync(process.env.GITHUB_OUTPUT, 'status<<EOF\\ndone\\nEOF\\n');\n" +
      "fs.appendFileSync(process.env.GITHUB_STATE, 'k<<EOF\\nv\\nEOF\\n');\n" +
      "fs.writeFileSync(require('node:path').join(process.env.RUNNER_TEMP, 'left.txt'), 'x');\n",
    'package.json': '{"type":"commonjs"}',
  });
  const r = await runStep({
    apiUrl: 'http://127.0.0.1:9',
    repository: 'acme/widgets',
    workspace: dist,
    eventName: 'push',
    payload: {},
    inputs: {},
    job: { runId: 1 },
    dist,
  });
  expect([r.code, r.outputs.status, r.state.k]).toEqual([0, 'done', 'v']);
  expect(r.runnerTemp).toMatch(/interlock-runner-/);
  expect(existsSync(r.runnerTemp)).toBe(false);
});

it('the workspaces it made are removed when the test process exits', () => {
  // A child process that makes a workspace through the helper and exits: the folder is gone after.
  const out = join(makeWorkspace({}), 'made.txt');
  const script = `import { makeWorkspace } from ${JSON.stringify(join(import.meta.dirname, 'action-process.ts'))};
import { writeFileSync } from 'node:fs';
writeFileSync(${JSON.stringify(out)}, makeWorkspace({ 'a.txt': 'a' }));`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, INTERLOCK_KEEP_TEST_TMP: '' },
  });
  expect(r.status, r.stderr).toBe(0);
  const ws = readFileSync(out, 'utf8');
  expect(ws).toMatch(/interlock-ws-/);
  expect(existsSync(ws)).toBe(false);
});
