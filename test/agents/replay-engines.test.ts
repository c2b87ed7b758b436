// `interlock replay` (issue 48) with the real Codex, Gemini CLI and Copilot CLI, each against the scripted model
// server through the metering key proxy: the attempt's recording is kept; a replay with no key answers every model
// call from it (the model server gets no request, the tool calls run again in the replay's copy) and leaves the
// journal byte for byte; after the graph's prompt changes, the replay stops at the first request that departs and
// names its field (exit 4). Claude Code's replay is test/agents/replay.test.ts.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { CLI, cleanupSandboxes, type Exit, requireBundle, type Sandbox, sandbox } from '../crash/harness.js';
import {
  agentHome,
  codexOwnProviderAgent,
  copilotBin,
  copilotEnv,
  geminiBin,
  geminiEnv,
  missing,
} from '../support/agent-clis.js';
import {
  type ModelServer,
  type ScriptedToolCall,
  type ScriptedTurn,
  startModelServer,
} from '../support/model-server.js';

const PROMPT = 'Append 1 and then 2 to calls.txt.';

interface Case {
  engine: string;
  label: string;
  cli: 'codex' | 'gemini' | 'copilot';
  /** The model key the run serves through the key proxy (and the replay withholds). */
  key: string;
  agent: () => string[];
  /** The engine's shell tool, appending `n` to calls.txt. */
  tool: (n: number) => ScriptedToolCall;
  /** The run's environment, the key's real value included; the replay's is the same without it. */
  env: (sb: Sandbox, url: string) => Record<string, string>;
  /** The run is in a git repository (its .gitignore leaves out the agent's home), replayed in its commit's tree. */
  git?: true;
}

/** One home for Copilot CLI in every run and replay of a case (its state is no part of the comparison). */
const copilotHome = agentHome('copilot');

/** Copilot CLI with a provider of its own: the provider's variables over copilotEnv's (its Anthropic API). */
function copilotCase(provider: string, env: Record<string, string>): Case {
  return {
    engine: 'copilot',
    label: `Copilot CLI (${provider})`,
    cli: 'copilot',
    key: 'COPILOT_PROVIDER_API_KEY',
    agent: () => [copilotBin ?? 'copilot', '--allow-all'],
    tool: (n) => ({ name: 'bash', input: { command: `echo ${n} >> calls.txt`, description: 'append' } }),
    env: (_sb, url) => ({
      ...copilotEnv(url, copilotHome),
      ...env,
      COPILOT_PROVIDER_API_KEY: 'REALKEY-copilot',
    }),
  };
}

const CASES: Case[] = [
  {
    engine: 'codex',
    label: 'Codex (the OpenAI Responses API)',
    cli: 'codex',
    key: 'OPENAI_API_KEY',
    agent: codexOwnProviderAgent,
    tool: (n) => ({ name: 'exec_command', input: { cmd: `echo ${n} >> calls.txt` } }),
    env: (sb, url) => {
      mkdirSync(sb.path('home'), { recursive: true });
      return {
        OPENAI_API_KEY: 'sk-REALKEY-codex',
        OPENAI_BASE_URL: `${url}/v1`,
        HOME: sb.path('home'),
        CODEX_HOME: sb.path('home'),
      };
    },
  },
  {
    engine: 'gemini',
    label: 'Gemini CLI (streamGenerateContent)',
    cli: 'gemini',
    key: 'GEMINI_API_KEY',
    agent: () => [geminiBin ?? 'gemini', '--approval-mode', 'yolo'],
    tool: (n) => ({ name: 'run_shell_command', input: { command: `echo ${n} >> calls.txt` } }),
    env: (sb, url) => {
      const env = { ...geminiEnv(url, sb.path('home')), GEMINI_API_KEY: 'REALKEY-gemini' };
      // Gemini CLI 0.61 lists its built-in skills in the order `glob` finds their files, which varies from run to
      // run (its system prompt, activate_skill's description and enum): a replay departs there unless skills are off.
      const settings = sb.path('home/.gemini/settings.json');
      writeFileSync(
        settings,
        JSON.stringify({ ...JSON.parse(readFileSync(settings, 'utf8')), skills: { enabled: false } }),
      );
      return env;
    },
    git: true,
  },
  copilotCase("its provider's Anthropic API", {}),
  copilotCase("its provider's Azure OpenAI chat completions", {
    COPILOT_PROVIDER_TYPE: 'azure',
    COPILOT_MODEL: 'gpt-5.1',
  }),
];

const graph = (c: Case, prompt: string) => `interlock: 1
name: replayed
defaults:
  engine: ${c.engine}
nodes:
  - id: work
    agent: ${JSON.stringify(c.agent().map(shellWord).join(' '))}
    prompt: ${prompt}
    validates:
      - file: calls.txt
`;

const models: ModelServer[] = [];
beforeAll(requireBundle);
afterEach(async (ctx) => {
  await cleanupSandboxes(ctx);
  for (const m of models.splice(0)) await m.close();
});

/** Temporary folders outside the sandbox (Gemini CLI lists the working directory: the sandbox's `.tmp/` is no part of it). */
const TMP = mkdtempSync(join(tmpdir(), 'interlock-replay-engines-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** The CLI to its end, however long a loaded machine makes it (the test's own timeout bounds it). */
function cli(sb: Sandbox, args: string[], env: Record<string, string>): Promise<Exit> {
  const base = { ...process.env };
  for (const k of Object.keys(base)) if (k.startsWith('INTERLOCK_')) delete base[k];
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: sb.dir,
    env: { ...base, ...env, TMPDIR: TMP, INTERLOCK_TEST_TAG: sb.tag },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (c: Buffer) => {
    out.stdout += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    out.stderr += c.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, ...out }));
  });
}

function gitRepo(sb: Sandbox): void {
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: sb.dir });
  sb.write('.gitignore', 'home/\n');
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'the graph');
}

/** The replay's folder, from what it printed: `.interlock/replays/r/work-1-<time>/`. */
const replayFolder = (stderr: string) =>
  /are in (\.interlock\/replays\/r\/work-1-[^/\s]+)\//.exec(stderr)?.[1];

for (const c of CASES)
  describe.skipIf(!!missing(c.cli))(`interlock replay with ${c.label}`, () => {
    it('reproduces the recorded tool calls offline with no key; a prompt change departs (exit 4)', async (ctx) => {
      const script: ScriptedTurn[] = [
        { text: 'Call 1.', tools: [c.tool(1)] },
        { text: 'Call 2.', tools: [c.tool(2)] },
        { text: 'Done.' },
      ];
      const model = await startModelServer({ script, whenDone: { text: 'Done.' } });
      models.push(model);
      const sb = sandbox(ctx, `interlock-replay-${c.engine}-`);
      sb.write('graph.yml', graph(c, PROMPT));
      if (c.git) gitRepo(sb);
      const env = c.env(sb, model.url);
      const run = await cli(
        sb,
        ['run', 'graph.yml', '--all', '--run-id', 'r', '--agent-credentials', c.key],
        env,
      );
      expect(run.code, run.stderr.slice(-2500)).toBe(0);
      expect(sb.lines('calls.txt')).toEqual(['1', '2']);
      const journal = sb.read('.interlock/runs/r.json')!;
      const recording = sb.read('.interlock/runs/r.logs/work-1.model.jsonl')!;
      const calls = recording.trim().split('\n').length;
      expect(calls).toBeGreaterThanOrEqual(3);
      if (c.engine === 'codex') {
        // Codex called over its WebSocket, none of its calls fell back to HTTPS: each recorded call is one
        // response.create (kept with the upgrade's method), and its replay is answered over a WebSocket too.
        const methods = recording
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { method: string }).method);
        expect(methods).toEqual(Array(calls).fill('GET'));
        expect(model.requests.map((q) => q.websocket)).toEqual(Array(model.requests.length).fill(true));
      }
      const served = model.requests.length;

      // No key at all; the model server's address left where the run had it: a call that went out would reach it.
      const { [c.key]: _real, ...keyless } = env;
      const replay = await cli(sb, ['replay', 'r', 'work'], keyless);
      expect(replay.code, replay.stderr.slice(-3000)).toBe(0);
      expect(replay.stderr).toContain(
        `reproduced: its ${calls} model calls were answered from the recording`,
      );
      expect(model.requests).toHaveLength(served);
      const folder = replayFolder(replay.stderr)!;
      const summary = JSON.parse(sb.read(`${folder}/replay.json`)!) as {
        answered: number[];
        workspace: string;
      };
      expect([...summary.answered].sort((a, b) => a - b)).toEqual(
        Array.from({ length: calls }, (_, i) => i + 1),
      );
      // The tool calls ran again, for real, in the copy: today's folder had the run's two lines; the commit's tree,
      // none (calls.txt is no file git tracks or ignores). The run's folder is as it was.
      const copied = c.git ? '' : '1\n2\n';
      expect(readFileSync(join(summary.workspace, 'calls.txt'), 'utf8')).toBe(`${copied}1\n2\n`);
      expect(sb.lines('calls.txt')).toEqual(['1', '2']);
      expect(sb.read('.interlock/runs/r.json')).toBe(journal);

      sb.write('graph.yml', graph(c, 'Append 1 and then 2 to calls.txt, then stop.'));
      const changed = await cli(sb, ['replay', 'r', 'work'], keyless);
      expect(changed.code, changed.stderr.slice(-3000)).toBe(4);
      const said = /departs from recorded call (\d+) at (\S+): recorded (.*), now (.*)$/m.exec(
        changed.stderr,
      );
      expect(said, changed.stderr.slice(-3000)).not.toBeNull();
      expect(said![4]).toContain('then stop.');
      expect(said![3]).not.toContain('then stop.');
      expect(model.requests).toHaveLength(served);
      expect(sb.read('.interlock/runs/r.json')).toBe(journal);
    }, 600_000);
  });
