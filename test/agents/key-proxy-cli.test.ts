// The model key behind the key proxy, with the real agent CLIs as nodes against the scripted model server, through
// the CLI with --agent-credentials (key-proxy.test.ts: through the bundled action). The agent's own tool runs
// test/support/reveal-keys.mjs, which looks for the real key everywhere a node can; the model server sees the
// real key, the agent only the placeholder.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shellWord } from '../../src/protocol/engines/engine.js';
import { cleanupSandboxes, requireBundle, sandbox } from '../crash/harness.js';
import { agentHome, copilotBin, copilotEnv, geminiBin, geminiEnv, missing } from '../support/agent-clis.js';
import { type ModelServer, type ScriptedToolCall, startModelServer } from '../support/model-server.js';
import {
  claudeAgent,
  claudeScript,
  claudeStepEnv,
  expectOnlyPlaceholders,
  expectRealKeyUpstream,
  graph,
  REAL_ANTHROPIC,
  REAL_AZURE,
  REAL_OPENAI,
  REPORTED,
  REVEAL,
  type Revealed,
} from './key-proxy-support.js';

describe('through the CLI, with --agent-credentials', () => {
  beforeAll(requireBundle);
  afterEach(cleanupSandboxes);

  it.skipIf(!!missing('claude'))(
    'Claude Code: the model server gets the real key; its env, /proc/self and files hold only the placeholder',
    async (ctx) => {
      const model = await startModelServer({ script: claudeScript });
      try {
        const sb = sandbox(ctx, 'interlock-keyed-');
        sb.write('reveal-keys.mjs', REVEAL);
        sb.write('graph.yml', graph('claude-code', claudeAgent()));
        const r = await sb.cli(
          ['run', 'graph.yml', '--all', '--run-id', 'k', '--agent-credentials', 'ANTHROPIC_API_KEY'],
          { ...claudeStepEnv(model.url), CLAUDE_CONFIG_DIR: sb.path('claude'), HOME: sb.path('claude') },
        );
        expect(r.code, r.stderr.slice(-2500)).toBe(0);
        expect(r.stderr).toContain('ANTHROPIC_API_KEY served through the key proxy on 127.0.0.1:');
        expectRealKeyUpstream(model, 'anthropic');
        const report = JSON.parse(sb.read('report.json')!) as Revealed;
        const { interlockEnviron, interlockMem, ...rest } = report;
        expectOnlyPlaceholders({ ...rest, interlockEnviron: '', interlockMem: '' }, 'anthropic');
        // What the CLI does not stop: its nodes run as the user who runs it, who can read its own process
        // (SECURITY.md). Pinned here so that a change to it updates the docs too.
        expect(interlockEnviron).toContain(REAL_ANTHROPIC);
        expect(interlockMem).toBeTruthy();
        expect(sb.read('.interlock/runs/k.json')).not.toContain('REALKEY');
      } finally {
        await model.close();
      }
    },
    120_000,
  );

  /** A case of the table below: an engine, its key's variables and where the upstream finds the real key. */
  interface KeyedCase {
    engine: string;
    label?: string;
    cli: 'gemini' | 'copilot';
    keyName: string;
    base: string;
    agent: () => string[];
    tool: ScriptedToolCall;
    env: (url: string) => Record<string, string>;
    upstreamKey: (r: ModelServer['requests'][number]) => string | string[] | undefined;
    /** The one path and query every model call reached the server on, when the case pins it. */
    upstreamCall?: [string, string];
    real: string;
  }
  /** Copilot CLI with a provider of its own: the provider's variables (over copilotEnv's) and its key's place. */
  const copilotCase = (
    c: Pick<KeyedCase, 'label' | 'upstreamKey' | 'upstreamCall' | 'real'> & {
      env: (url: string) => Record<string, string>;
    },
  ): KeyedCase => ({
    engine: 'copilot',
    cli: 'copilot',
    keyName: 'COPILOT_PROVIDER_API_KEY',
    base: 'COPILOT_PROVIDER_BASE_URL',
    agent: () => [copilotBin!, '--allow-all'],
    tool: { name: 'bash', input: { command: 'node reveal-keys.mjs report.json', description: 'look' } },
    ...c,
    env: (url) => ({ ...copilotEnv(url, agentHome('copilot')), ...c.env(url) }),
  });

  // Gemini CLI and Copilot CLI (a provider of its own, Anthropic's API): the same, each through its own variables.
  const engines: KeyedCase[] = [
    {
      engine: 'gemini',
      cli: 'gemini' as const,
      keyName: 'GEMINI_API_KEY',
      base: 'GOOGLE_GEMINI_BASE_URL',
      agent: () => [geminiBin!, '--approval-mode', 'yolo'],
      tool: { name: 'run_shell_command', input: { command: 'node reveal-keys.mjs report.json' } },
      env: (url: string) => ({ ...geminiEnv(url, agentHome('gemini')), GEMINI_API_KEY: REAL_OPENAI }),
      upstreamKey: (r: ModelServer['requests'][number]) => r.headers['x-goog-api-key'],
      real: REAL_OPENAI,
    },
    copilotCase({
      upstreamKey: (r) => r.headers['x-api-key'],
      env: () => ({ COPILOT_PROVIDER_API_KEY: REAL_ANTHROPIC }),
      real: REAL_ANTHROPIC,
    }),
    // An OpenAI-style provider: the Responses API under the base URL's /v1.
    copilotCase({
      label: 'copilot (an OpenAI Responses provider)',
      env: (url) => ({
        COPILOT_PROVIDER_TYPE: 'openai',
        COPILOT_PROVIDER_WIRE_API: 'responses',
        COPILOT_PROVIDER_BASE_URL: `${url}/v1`,
        COPILOT_MODEL: 'gpt-5.1',
        COPILOT_PROVIDER_API_KEY: REAL_OPENAI,
      }),
      upstreamKey: (r) => r.headers.authorization?.replace(/^Bearer /, ''),
      real: REAL_OPENAI,
    }),
    // Azure OpenAI, Copilot's default wire API: chat completions on the versionless v1 route, the key in api-key.
    copilotCase({
      label: 'copilot (an Azure OpenAI provider, chat completions on the v1 route)',
      env: () => ({
        COPILOT_PROVIDER_TYPE: 'azure',
        COPILOT_MODEL: 'gpt-5.1',
        COPILOT_PROVIDER_API_KEY: REAL_AZURE,
      }),
      upstreamKey: (r) => r.headers['api-key'],
      upstreamCall: ['/openai/v1/chat/completions', ''],
      real: REAL_AZURE,
    }),
    // With an API version: the versioned route of the deployment, the version in the query.
    copilotCase({
      label: 'copilot (an Azure OpenAI provider, a deployment with an API version)',
      env: () => ({
        COPILOT_PROVIDER_TYPE: 'azure',
        COPILOT_PROVIDER_AZURE_API_VERSION: '2024-10-21',
        COPILOT_PROVIDER_MODEL_ID: 'gpt-5.1',
        COPILOT_PROVIDER_WIRE_MODEL: 'team-gpt',
        COPILOT_MODEL: 'gpt-5.1',
        COPILOT_PROVIDER_API_KEY: REAL_AZURE,
      }),
      upstreamKey: (r) => r.headers['api-key'],
      upstreamCall: ['/openai/deployments/team-gpt/chat/completions', '?api-version=2024-10-21'],
      real: REAL_AZURE,
    }),
  ];
  for (const e of engines)
    it.skipIf(!!missing(e.cli))(
      `${'label' in e ? e.label : e.engine}: the model server gets the real key; the agent, its tools and the CLI's own process only the placeholder`,
      async (ctx) => {
        const model = await startModelServer({
          script: [{ text: 'Looking.', tools: [e.tool] }, { text: 'Reported.' }],
          whenDone: REPORTED,
        });
        try {
          const sb = sandbox(ctx, 'interlock-keyed-');
          sb.write('reveal-keys.mjs', REVEAL);
          sb.write('graph.yml', graph(e.engine, e.agent().map(shellWord).join(' ')));
          const r = await sb.cli(
            ['run', 'graph.yml', '--all', '--run-id', 'k', '--agent-credentials', e.keyName],
            e.env(model.url),
          );
          expect(r.code, r.stderr.slice(-2500)).toBe(0);
          expect(r.stderr).toContain(`${e.keyName} served through the key proxy on 127.0.0.1:`);
          expect(model.calls.length).toBeGreaterThanOrEqual(2);
          for (const q of model.requests) expect(e.upstreamKey(q)).toBe(e.real);
          if ('upstreamCall' in e && e.upstreamCall)
            expect(new Set(model.calls.map((q) => [q.path, q.query].join('')))).toEqual(
              new Set([e.upstreamCall.join('')]),
            );
          const report = JSON.parse(sb.read('report.json')!) as Revealed;
          const { interlockEnviron: _i, interlockMem: _m, ...rest } = report;
          expect(JSON.stringify(rest)).not.toContain('REALKEY');
          expect(report.agentEnviron).toEqual([]);
          // Gemini's tools get the placeholder and the proxy's address; Copilot's tools get neither variable.
          if (e.engine === 'gemini') {
            expect(report.env[e.keyName]).toMatch(/interlock-placeholder-/);
            expect(report.env[e.base]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
          } else expect([report.env[e.keyName], report.env[e.base]]).toEqual([null, null]);
          expect(sb.read('.interlock/runs/k.json')).not.toContain('REALKEY');
        } finally {
          await model.close();
        }
      },
      120_000,
    );

  it('without the flag the CLI passes the key on as before (the proxy is opt-in there)', async (ctx) => {
    const sb = sandbox(ctx, 'interlock-keyed-');
    sb.write(
      'graph.yml',
      'interlock: 1\nname: plain\nnodes:\n  - id: a\n    run: printf "%s|%s" "$ANTHROPIC_API_KEY" "$NO_PROXY" > seen.txt\n    validates:\n      - file: seen.txt\n',
    );
    const r = await sb.cli(['run', 'graph.yml', '--all'], { ANTHROPIC_API_KEY: REAL_ANTHROPIC });
    expect(r.code, r.stderr).toBe(0);
    expect(sb.read('seen.txt')).toBe(`${REAL_ANTHROPIC}|`);
    const bad = await sb.cli([
      'run',
      'graph.yml',
      '--all',
      '--run-id',
      'b',
      '--agent-credentials',
      'NPM_TOKEN',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--agent-credentials: "NPM_TOKEN" is not a model key interlock can serve');
  });
});
