// `interlock replay` (issue 48) runs the agent in the tree of the commit checked out when the attempt was
// dispatched (`runner.git_head`), not in today's; where this repository no longer has that commit it runs in the
// working directory as it is now and says so. Anthropic's token count (`/v1/messages/count_tokens`) is kept in
// the recording and answered from it. The run is real: an agent script reads a tracked file, counts its tokens and
// asks the scripted model server about it through the key proxy with its placeholder, then changes the file.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { capturedIo } from '../support/cli-io.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';

/** A token count and a model call about notes.txt, through the proxy; then the file is changed. */
const AGENT = `import { appendFileSync, readFileSync } from 'node:fs';
const notes = readFileSync('notes.txt', 'utf8');
const post = async (path, body) => {
  const r = await fetch(process.env.ANTHROPIC_BASE_URL + path, {
    method: 'POST',
    headers: { 'x-api-key': process.env.ANTHROPIC_API_KEY, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });
  if (!r.ok) { console.error(path, r.status, await r.text()); process.exit(1); }
  return r.json();
};
const messages = [{ role: 'user', content: notes }];
const counted = await post('/v1/messages/count_tokens', { model: 'claude-sonnet-4-5', messages });
await post('/v1/messages', { model: 'claude-sonnet-4-5', max_tokens: 100, messages });
appendFileSync('notes.txt', 'changed by the attempt\\n');
console.log(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, num_turns: 1,
  result: 'counted ' + counted.input_tokens, session_id: 's', total_cost_usd: 0, usage: { input_tokens: 1, output_tokens: 1 } }));
`;

let dir: string;
let model: ModelServer;
const { printed, io } = capturedIo(() => dir);
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd: dir,
    encoding: 'utf8',
  }).trim();

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'interlock-replay-tree-'));
  git('init', '-q');
  model = await startModelServer({
    script: [{ text: 'Noted.', usage: { input_tokens: 500, output_tokens: 20 } }],
  });
});
afterEach(async () => {
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One recorded run at a first commit; then the attempt's change is committed, so HEAD and the tree moved on. */
async function recordedRun(): Promise<{ head: string; journal: string }> {
  writeFileSync(join(dir, 'agent.mjs'), AGENT);
  writeFileSync(join(dir, 'notes.txt'), 'the notes as they were\n');
  writeFileSync(join(dir, '.gitignore'), '.interlock/\n');
  writeFileSync(
    join(dir, 'g.yml'),
    `interlock: 1\nname: g\nnodes:\n  - id: work\n    engine: claude-code\n    agent: ${JSON.stringify(`${process.execPath} agent.mjs`)}\n    prompt: Read the notes.\n`,
  );
  git('add', '-A');
  git('commit', '-q', '-m', 'first');
  const head = git('rev-parse', 'HEAD');
  const env = { ANTHROPIC_API_KEY: 'sk-ant-REALKEY-tree', ANTHROPIC_BASE_URL: model.url };
  const code = await main(
    ['run', 'g.yml', '--all', '--quiet', '--run-id', 't', '--agent-credentials', 'ANTHROPIC_API_KEY'],
    io(env),
  );
  expect(code, printed.err).toBe(0);
  expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toContain('changed by the attempt');
  git('commit', '-q', '-am', 'the attempt');
  return { head, journal: readFileSync(join(dir, '.interlock/runs/t.json'), 'utf8') };
}

const summaryOf = (): { answered: number[]; workspace: string; tree: string } => {
  const folder = /in (\.interlock\/replays\/t\/work-1-[^/\s]+)\//.exec(printed.err)![1]!;
  return JSON.parse(readFileSync(join(dir, folder, 'replay.json'), 'utf8'));
};

describe('interlock replay: the tree at the dispatch, and the token count', () => {
  it("runs in the tree of the dispatch's commit, with the token count answered from the recording", async () => {
    const { head, journal } = await recordedRun();
    expect(journal).toContain(`"git_head":"${head}"`);
    const recording = readFileSync(join(dir, '.interlock/runs/t.logs/work-1.model.jsonl'), 'utf8');
    const paths = recording
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { path: string }).path);
    expect(paths).toEqual(['/v1/messages/count_tokens', '/v1/messages']);
    // Only the model call is metered: the token count is billed nothing.
    expect(journal).toMatch(/"metered":\{"calls":1,/);
    const served = model.requests.length;
    // No key, the model server's address left in place: a call that went out would reach it.
    const code = await main(['replay', 't', 'work'], io());
    expect(code, printed.err).toBe(0);
    expect(printed.err).toContain(`the copy holds the tree of commit ${head.slice(0, 12)}`);
    expect(printed.err).toContain('reproduced: its 2 model calls were answered from the recording');
    expect(model.requests).toHaveLength(served);
    const summary = summaryOf();
    expect(summary.answered).toEqual([1, 2]);
    // The copy's notes are the commit's (the replayed attempt added its line to them), its HEAD the commit.
    expect(readFileSync(join(summary.workspace, 'notes.txt'), 'utf8')).toBe(
      'the notes as they were\nchanged by the attempt\n',
    );
    expect(
      execFileSync('git', ['rev-parse', 'HEAD'], { cwd: summary.workspace, encoding: 'utf8' }).trim(),
    ).toBe(head);
    expect(readFileSync(join(dir, '.interlock/runs/t.json'), 'utf8')).toBe(journal);
    rmSync(summary.workspace, { recursive: true, force: true });
  }, 60_000);

  it('without the commit here, runs in the working directory as it is now, says so, and departs', async () => {
    const { head, journal } = await recordedRun();
    // Another history: the dispatch's commit is gone from this repository.
    rmSync(join(dir, '.git'), { recursive: true, force: true });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'another history');
    const served = model.requests.length;
    const code = await main(['replay', 't', 'work'], io());
    expect(code, printed.err).toBe(4);
    expect(printed.err).toContain(
      `the copy holds the working directory as it is now: the commit ${head.slice(0, 12)} the attempt was dispatched at is not in this repository`,
    );
    // Today's notes carry the attempt's line: the first request (the token count) departs at the prompt.
    expect(printed.err).toMatch(
      /request 1 departs from recorded call 1 at messages\[0\]\.content: recorded .*, now /,
    );
    expect(model.requests).toHaveLength(served);
    expect(readFileSync(join(dir, '.interlock/runs/t.json'), 'utf8')).toBe(journal);
    rmSync(summaryOf().workspace, { recursive: true, force: true });
  }, 60_000);
});
