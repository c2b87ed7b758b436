/**
 * What key-proxy.test.ts (through the bundled action) and key-proxy-cli.test.ts (through the CLI) share: the real
 * keys, the graph whose agent runs test/support/reveal-keys.mjs, the agents' scripts and environments, and what the
 * report must show. Two files, so that the agent CLIs' runs do not hold the suite's critical path in one.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { expect } from 'vitest';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { claudeBin, codexOwnProviderAgent } from '../support/agent-clis.js';
import type { ModelServer, ScriptedTurn } from '../support/model-server.js';

export const REVEAL = readFileSync(new URL('../support/reveal-keys.mjs', import.meta.url), 'utf8');
/** The step's log as the runner shows it: it takes the `::add-mask::` commands the step sends and prints none. */
export const shownLog = (log: string) => log.replace(/^::add-mask::.*$/gm, '');

export const REAL_ANTHROPIC = `sk-ant-REALKEY-${randomBytes(12).toString('hex')}`;
export const REAL_OPENAI = `sk-REALKEY-${randomBytes(12).toString('hex')}`;
export const REAL_AZURE = `REALKEY${randomBytes(12).toString('hex')}`;
export const GRAPH_FILE = '.github/interlock/keyed.yml';
/**
 * The answer to a model call past the script. Copilot CLI's bash tool waits 30 s for a command (its default
 * `initial_wait`), then leaves it running and tells the model; when the command ends it calls the model once more.
 * reveal-keys.mjs walks the node's readable files (the temp folder among them): under load it has outlasted the
 * 30 s, and that extra call, unscripted, was answered 500 and failed the attempt. The scan's length is load-bound;
 * the number of calls is the CLI's to choose: the model answers them all.
 */
export const REPORTED: ScriptedTurn = { text: 'Reported.' };
export const root = process.getuid?.() === 0;

export interface Revealed {
  env: Record<string, string | null>;
  noProxy: string | null;
  /** Real keys in the environ of the processes between the tool and interlock (the agent CLI's own). */
  agentEnviron: string[];
  selfEnviron: string[];
  interlockPid: number | null;
  interlockEnviron: string;
  interlockMem: string;
  files: string[];
}

export const graph = (engine: string, agent: string) => `interlock: 1
name: keyed
defaults:
  engine: ${engine}
nodes:
  - id: implement
    agent: ${JSON.stringify(agent)}
    prompt: Write report.json.
    validates:
      - file: report.json
`;

/** Claude Code on loopback, with no config folder given: under isolation it uses its own home's. */
export const claudeStepEnv = (url: string) => ({
  ANTHROPIC_BASE_URL: url,
  ANTHROPIC_API_KEY: REAL_ANTHROPIC,
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
});
export const claudeAgent = () => [claudeBin!, '-p', '--allowedTools', 'Bash'].map(shellWord).join(' ');
export const claudeScript: ScriptedTurn[] = [
  {
    text: 'Looking.',
    tools: [{ name: 'Bash', input: { command: 'node reveal-keys.mjs report.json', description: 'look' } }],
  },
  { text: 'Reported.' },
];

/** Codex with its own OpenAI provider (no provider of the test's): interlock points it at the proxy. */
export const codexAgent = () => codexOwnProviderAgent().map(shellWord).join(' ');
export const codexScript: ScriptedTurn[] = [
  { text: 'Looking.', tools: [{ name: 'exec_command', input: { cmd: 'node reveal-keys.mjs report.json' } }] },
  { text: 'Reported.' },
];

/** What the agent found holds only placeholders: no trace of a real key in anything it could reach. */
export function expectOnlyPlaceholders(r: Revealed, api: 'anthropic' | 'openai'): void {
  expect(JSON.stringify(r)).not.toContain('REALKEY');
  if (api === 'anthropic') {
    expect(r.env.ANTHROPIC_API_KEY).toMatch(/^sk-ant-interlock-placeholder-[A-Za-z0-9_-]{32}$/);
    expect(r.env.ANTHROPIC_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  } else {
    expect(r.env.OPENAI_API_KEY).toMatch(/^sk-interlock-placeholder-[A-Za-z0-9_-]{32}$/);
    expect(r.env.CODEX_API_KEY).toBe(r.env.OPENAI_API_KEY);
    expect(r.env.OPENAI_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  }
  expect(r.selfEnviron).toEqual([]);
  expect(r.files).toEqual([]);
  expect(r.noProxy).toMatch(/(^|,)127\.0\.0\.1(,|$)/);
  expect(r.noProxy).toMatch(/(^|,)localhost(,|$)/);
}

/** Every request that reached the model server carried the real key, and only the real key. */
export function expectRealKeyUpstream(model: ModelServer, api: 'anthropic' | 'openai'): void {
  expect(model.calls.length).toBeGreaterThanOrEqual(2);
  for (const r of model.requests) {
    if (api === 'anthropic') expect(r.headers['x-api-key']).toBe(REAL_ANTHROPIC);
    else expect(r.headers.authorization).toBe(`Bearer ${REAL_OPENAI}`);
  }
}

/** The proxy's port refuses connections once the step is over. */
export function refused(baseUrl: string): Promise<string> {
  const u = new URL(baseUrl);
  return new Promise((resolve) => {
    const req = request({ host: u.hostname, port: u.port, method: 'HEAD', path: '/' }, (res) =>
      resolve(`answered ${res.statusCode}`),
    );
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    req.end();
  });
}
