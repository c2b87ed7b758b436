// `interlock status` (text and --json) and the maintainers' page (`interlock ui`) link a metered attempt to its
// recording, its path and SHA-256, and show what the key proxy metered against what the agent reported (issue 48).
// The run is real: an agent script calls the scripted model server through the key proxy with its placeholder,
// then reports 1 token and $0 in a Claude Code result line.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningUi, startUi } from '../../src/cli/commands/ui.js';
import { main } from '../../src/cli/main.js';
import { capturedIo } from '../support/cli-io.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';

/** One model call through the key proxy, then a Claude Code result line that under-reports it. */
const AGENT = `const r = await fetch(process.env.ANTHROPIC_BASE_URL + '/v1/messages', {
  method: 'POST',
  headers: { 'x-api-key': process.env.ANTHROPIC_API_KEY, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
  body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }),
});
if (!r.ok) { console.error(await r.text()); process.exit(1); }
console.log(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, num_turns: 1, result: 'ok',
  session_id: 's', total_cost_usd: 0, usage: { input_tokens: 1, output_tokens: 1 } }));
`;

let dir: string;
let model: ModelServer;
let ui: RunningUi | undefined;
const { printed, io } = capturedIo(() => dir);

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'interlock-metered-status-'));
  execFileSync('git', ['init', '-q'], { cwd: dir });
  model = await startModelServer({
    script: [{ text: 'Hello.', usage: { input_tokens: 120_000, output_tokens: 3_000 } }],
  });
});
afterEach(async () => {
  await ui?.close();
  ui = undefined;
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a metered attempt in status and on the page', () => {
  it('is linked to its recording (path and SHA-256) and shows metered against reported', async () => {
    writeFileSync(join(dir, 'agent.mjs'), AGENT);
    writeFileSync(
      join(dir, 'g.yml'),
      `interlock: 1\nname: g\nnodes:\n  - id: work\n    engine: claude-code\n    agent: ${JSON.stringify(`${process.execPath} agent.mjs`)}\n    prompt: Say hi.\n`,
    );
    const env = { ANTHROPIC_API_KEY: 'sk-ant-REALKEY-status', ANTHROPIC_BASE_URL: model.url };
    const code = await main(
      ['run', 'g.yml', '--all', '--quiet', '--agent-credentials', 'ANTHROPIC_API_KEY'],
      io(env),
    );
    expect(code, printed.err).toBe(0);
    const journal = readFileSync(join(dir, '.interlock/runs/g.json'), 'utf8');
    const rec = (
      JSON.parse(journal) as {
        events: Array<{
          type: string;
          usage?: { metered?: { recording?: { sha256: string } }; difference?: string };
        }>;
      }
    ).events.find((e) => e.type === 'NodeRecorded')!;
    const sha = rec.usage!.metered!.recording!.sha256;
    const difference = rec.usage!.difference!;
    expect(difference).toContain('1 input tokens reported');

    expect(await main(['status', '--run-id', 'g'], io())).toBe(0);
    expect(printed.out).toContain('model calls (what the key proxy metered and kept of each attempt):');
    expect(printed.out).toContain(
      `work attempt 1: 1 call kept in .interlock/runs/g.logs/work-1.model.jsonl, sha256 ${sha.slice(0, 12)}…; interlock replay g work --attempt 1`,
    );
    expect(printed.out).toContain(`work attempt 1: metered differs from reported: ${difference}`);

    expect(await main(['status', '--run-id', 'g', '--json'], io())).toBe(0);
    const json = JSON.parse(printed.out) as { status: string; metered_attempts: unknown };
    expect(json.status).toBe('completed');
    expect(json.metered_attempts).toEqual([
      {
        node: 'work',
        attempt: 1,
        recording: { path: '.interlock/runs/g.logs/work-1.model.jsonl', sha256: sha, calls: 1 },
        difference,
      },
    ]);

    ui = await startUi(io(), { dir: join(dir, '.interlock/runs'), port: 0, by: 'alice' });
    const page = await (await fetch(`${ui.url}run?repo=local&run=g`)).text();
    expect(page).toContain('<th scope="col">Model calls</th>');
    expect(page).toContain(
      `1 kept in <code>.interlock/runs/g.logs/work-1.model.jsonl</code>, sha256 <code>${sha.slice(0, 12)}&hellip;</code>`,
    );
    expect(page).toContain('metered differs from reported: ');
    expect(page).toContain('1 input tokens reported');
    // Looking changed nothing.
    expect(readFileSync(join(dir, '.interlock/runs/g.json'), 'utf8')).toBe(journal);
  }, 60_000);
});
