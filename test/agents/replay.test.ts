// `interlock replay` (issue 48) with the real Claude Code: a run through the metering key proxy against the
// scripted model server keeps the attempt's recording; the replay runs the same agent again with no key and the
// model server out of reach of its calls, each answered from the recording, and the agent makes the same tool calls
// and gets the same results. After the graph's prompt changes, the replay stops at the first request that departs
// and names its first differing field (exit 4). A recording that is not the journal's is refused. The run's journal
// is never written by a replay.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../src/journal/events/events.js';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { type Exit, requireBundle, Sandbox } from '../crash/harness.js';
import { claudeBin, missing } from '../support/agent-clis.js';
import { type ModelServer, type ScriptedTurn, startModelServer } from '../support/model-server.js';

const MODEL = 'claude-sonnet-4-5-20250929';
const PROMPT = 'Append to calls.txt until told to stop.';

const graph = (prompt: string) => `interlock: 1
name: replayed
defaults:
  engine: claude-code
nodes:
  - id: work
    agent: ${JSON.stringify([claudeBin ?? 'claude', '-p', '--model', MODEL, '--allowedTools', 'Bash'].map(shellWord).join(' '))}
    prompt: ${prompt}
    validates:
      - file: calls.txt
`;

const bash = (n: number): ScriptedTurn => ({
  text: `Call ${n}.`,
  tools: [
    {
      name: 'Bash',
      input: { command: `echo ${n} >> calls.txt && echo appended ${n}`, description: 'append' },
    },
  ],
  usage: { input_tokens: 1000, output_tokens: 100 },
});

let model: ModelServer | undefined;
let sb: Sandbox;
let env: Record<string, string>;
beforeAll(requireBundle);
afterAll(async () => {
  await sb?.cleanup();
  await model?.close();
});

/** The CLI to its end, however long a loaded machine makes it (the test's own timeout bounds it). */
const cli = (args: string[], extra: Record<string, string> = {}): Promise<Exit> =>
  sb.start(args, { ...env, ...extra }).exited;

function claudeEnv(sb: Sandbox, url: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: url,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CONFIG_DIR: sb.path('claude'),
    HOME: sb.path('claude'),
  };
}

/** One recorded run for every test: one Claude Code attempt through the metering key proxy, two tool calls. */
async function recordedRun() {
  if (model) return;
  model = await startModelServer({ script: [bash(1), bash(2), { text: 'Done.' }] });
  sb = new Sandbox('interlock-replay-');
  sb.write('graph.yml', graph(PROMPT));
  env = claudeEnv(sb, model.url);
  const r = await cli(
    ['run', 'graph.yml', '--all', '--run-id', 'm', '--agent-credentials', 'ANTHROPIC_API_KEY'],
    {
      ANTHROPIC_API_KEY: 'sk-ant-REALKEY-replay',
    },
  );
  expect(r.code, r.stderr.slice(-2500)).toBe(0);
}

type Block = { type: string; name?: string; input?: unknown; content?: unknown; text?: string };
type Message = { role: string; content: string | Block[] };

/** The tool calls and their results, in order, as the last request of a recording carries the conversation. */
function toolExchange(recording: string): unknown[] {
  const requests = recording
    .trim()
    .split('\n')
    .map((l) => JSON.parse(JSON.parse(l).request as string) as { messages?: Message[] })
    .filter((q) => JSON.stringify(q.messages ?? []).includes('calls.txt'));
  const last = requests.at(-1)!;
  return last.messages!.flatMap((m) =>
    typeof m.content === 'string'
      ? []
      : m.content
          .filter((b) => b.type === 'tool_use' || b.type === 'tool_result')
          .map((b) => (b.type === 'tool_use' ? { use: b.name, input: b.input } : { result: b.content })),
  );
}

/** The replay's own folder, `.interlock/replays/m/work-1-<time>/`: the one made since `before`. */
function replayFolder(before: string[]): string {
  const dirs = readdirSync(sb.path('.interlock/replays/m')).filter((d) => !before.includes(d));
  expect(dirs).toHaveLength(1);
  return `.interlock/replays/m/${dirs[0]}`;
}

const folders = () => (sb.exists('.interlock/replays/m') ? readdirSync(sb.path('.interlock/replays/m')) : []);

describe.skipIf(!!missing('claude'))('interlock replay with the real Claude Code', () => {
  it("reproduces the recorded attempt's tool calls offline, without a key, and writes no journal", async () => {
    await recordedRun();
    const journal = sb.read('.interlock/runs/m.json')!;
    const events = (JSON.parse(journal) as { events: JournalEvent[] }).events;
    const rec = events.find((e) => e.type === 'NodeRecorded') as Extract<
      JournalEvent,
      { type: 'NodeRecorded' }
    >;
    const ref = (rec.usage as { metered?: { recording?: { path: string; calls: number } } }).metered!
      .recording!;
    const recorded = sb.read(ref.path)!;
    const before = toolExchange(recorded);
    expect(before).toHaveLength(4);
    const served = model!.requests.length;
    const had = folders();
    // No key at all, and the model server's address left in place: any call that went out would reach it.
    const r = await cli(['replay', 'm', 'work']);
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    expect(r.stderr).toContain(`reproduced: its ${ref.calls} model calls were answered from the recording`);
    // Not in a git repository: the copy is the working directory as it is now, and the replay says so.
    expect(r.stderr).toContain(
      'the copy holds the working directory as it is now: the journal names no commit for its dispatch',
    );
    expect(model!.requests).toHaveLength(served);
    const out = replayFolder(had);
    const replayed = sb.read(`${out}/work-1.model.jsonl`)!;
    // The same tool calls, with the same results.
    const after = toolExchange(replayed);
    expect(after).toEqual(before);
    const summary = JSON.parse(sb.read(`${out}/replay.json`)!) as { answered: number[]; workspace: string };
    expect(summary.answered).toHaveLength(ref.calls);
    // The tool calls ran for real, in the replay's copy of the working directory (which had the run's two lines).
    expect(readFileSync(join(summary.workspace, 'calls.txt'), 'utf8')).toBe('1\n2\n1\n2\n');
    expect(sb.read('calls.txt')).toBe('1\n2\n');
    expect(JSON.stringify(after)).toContain('appended 2');
    expect(sb.read('.interlock/runs/m.json')).toBe(journal);
  }, 600_000);

  it('after a prompt change, stops at the first request that departs and names its first differing field', async () => {
    await recordedRun();
    const journal = sb.read('.interlock/runs/m.json')!;
    sb.write('graph.yml', graph('Append to calls.txt twice, then stop.'));
    const served = model!.requests.length;
    const had = folders();
    const r = await cli(['replay', 'm', 'work']);
    expect(r.code, r.stderr.slice(-3000)).toBe(4);
    const said = /departs from recorded call (\d+) at (\S+): recorded (.*), now (.*)$/m.exec(r.stderr);
    expect(said, r.stderr.slice(-3000)).not.toBeNull();
    // The prompt is the first user message's text.
    expect(said![2]).toMatch(/^messages\[0\]\.content/);
    expect(said![3]).toContain('Append to calls.txt until told to stop.');
    expect(said![4]).toContain('Append to calls.txt twice, then stop.');
    const summary = JSON.parse(sb.read(`${replayFolder(had)}/replay.json`)!) as {
      departure: { call: number; field: string };
    };
    expect(summary.departure.field).toBe(said![2]);
    expect(model!.requests).toHaveLength(served);
    expect(sb.read('.interlock/runs/m.json')).toBe(journal);
    sb.write('graph.yml', graph(PROMPT));
  }, 600_000);

  it('refuses a recording that is not the one the journal recorded, and changes nothing', async () => {
    await recordedRun();
    const journal = sb.read('.interlock/runs/m.json')!;
    const path = '.interlock/runs/m.logs/work-1.model.jsonl';
    sb.write(path, sb.read(path)!.replace('Call 1.', 'Call 9.'));
    const had = folders();
    const r = await cli(['replay', 'm', 'work']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /the recording \S+ is not the one the journal recorded \(its SHA-256 is [0-9a-f]{64}/,
    );
    expect(folders()).toEqual(had);
    expect(sb.read('.interlock/runs/m.json')).toBe(journal);
  }, 600_000);
});
