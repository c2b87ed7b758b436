/**
 * The real agent CLIs for tests: where `.ci/run` installs them (`.agent-clis/`, pinned, never dependencies), the
 * environment that keeps each on loopback against the scripted model server, and the reason a test skips when
 * one is missing.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Where `.ci/run` installs the CLIs; `INTERLOCK_AGENT_CLIS` names another folder. */
export const AGENT_CLIS_DIR = process.env.INTERLOCK_AGENT_CLIS ?? join(ROOT, '.agent-clis');
export const CLAUDE_CODE_VERSION = '2.1.197';
export const CODEX_VERSION = '0.171.0';
export const COPILOT_VERSION = '1.0.102';
export const GEMINI_VERSION = '0.61.0';

const bin = (name: string) => join(AGENT_CLIS_DIR, 'node_modules', '.bin', name);

/** The Claude Code binary, or undefined when it is not installed. */
export const claudeBin: string | undefined = existsSync(bin('claude')) ? bin('claude') : undefined;
/** The Codex launcher, or undefined when it is not installed. */
export const codexBin: string | undefined = existsSync(bin('codex')) ? bin('codex') : undefined;
/** The Gemini CLI launcher, or undefined when it is not installed. */
export const geminiBin: string | undefined = existsSync(bin('gemini')) ? bin('gemini') : undefined;
/** The Copilot CLI launcher, or undefined when it is not installed. */
export const copilotBin: string | undefined = existsSync(bin('copilot')) ? bin('copilot') : undefined;

type Cli = 'claude' | 'codex' | 'gemini' | 'copilot';
const FOUND: Record<Cli, string | undefined> = {
  claude: claudeBin,
  codex: codexBin,
  gemini: geminiBin,
  copilot: copilotBin,
};
const PACKAGES: Record<Cli, string> = {
  claude: `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`,
  codex: `@openai/codex@${CODEX_VERSION}`,
  gemini: `@google/gemini-cli@${GEMINI_VERSION}`,
  copilot: `@github/copilot@${COPILOT_VERSION}`,
};

/** Why tests of a CLI are skipped (printed once per file), or undefined when it is there. */
export function missing(cli: Cli): string | undefined {
  if (FOUND[cli]) return undefined;
  const pkg = PACKAGES[cli];
  const why = `${cli} is not installed in ${AGENT_CLIS_DIR}: tests with the real CLI are skipped (install: npm i --prefix .agent-clis --no-save ${pkg}, as .ci/run does)`;
  console.warn(why);
  return why;
}

/** A fresh folder for an agent's own state (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`). */
export function agentHome(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `interlock-${prefix}-`));
}

/**
 * Claude Code against the scripted server, with nothing but loopback traffic. Its home is its config folder:
 * its Bash tool sources the user's shell start-up files, and a machine's own (a slow `pyenv init`, say) is no
 * part of a test.
 */
export function claudeEnv(serverUrl: string, configDir: string): Record<string, string> {
  return {
    HOME: configDir,
    ANTHROPIC_BASE_URL: serverUrl,
    ANTHROPIC_API_KEY: 'sk-ant-scripted',
    CLAUDE_CONFIG_DIR: configDir,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
  };
}

/** The model Codex is told to use: a classic one, so it offers a shell tool rather than "code mode". */
export const CODEX_MODEL = 'gpt-5.1-codex';

/** The model Gemini CLI is told to use: a named one (its default, `auto`, makes an extra routing call). */
export const GEMINI_MODEL = 'gemini-2.5-flash';

/**
 * Gemini CLI against the scripted server. Its home holds its settings: with a base URL set, headless auth counts
 * as a "gateway" (exit 41) unless the settings select the API key; usage statistics off keeps it on loopback.
 */
export function geminiEnv(serverUrl: string, home: string): Record<string, string> {
  mkdirSync(join(home, '.gemini'), { recursive: true });
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
  };
  writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify(settings));
  return {
    HOME: home,
    GEMINI_CLI_HOME: home,
    GOOGLE_GEMINI_BASE_URL: serverUrl,
    GEMINI_API_KEY: 'scripted-gemini-key',
    GEMINI_MODEL,
  };
}

/** The model Copilot CLI is told to use (a provider of one's own needs one named). */
export const COPILOT_MODEL = 'claude-sonnet-4.5';

/**
 * Copilot CLI against the scripted server's Anthropic API as a provider of its own (no GitHub login). Its first
 * run unpacks its package into XDG_CACHE_HOME (about 235 MB): one folder for every test, kept between them.
 */
export function copilotEnv(serverUrl: string, home: string): Record<string, string> {
  return {
    HOME: home,
    COPILOT_HOME: join(home, '.copilot'),
    XDG_CACHE_HOME: join(tmpdir(), 'interlock-copilot-cache'),
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_TYPE: 'anthropic',
    COPILOT_PROVIDER_BASE_URL: serverUrl,
    COPILOT_PROVIDER_API_KEY: 'scripted-copilot-key',
    COPILOT_MODEL,
  };
}

/** The `-c` options that keep Codex off the network but for its model: no analytics, update check or plugins. */
const CODEX_OFFLINE = [
  '-c',
  'analytics.enabled=false',
  '-c',
  'check_for_update_on_startup=false',
  '-c',
  'features.plugins=false',
  // Codex's workspace-write sandbox makes /tmp and $TMPDIR writable and, for each, mounts read-only `.git`,
  // `.codex` and `.agents` folders, which it creates where none is: an empty /tmp/.git made every folder of the
  // suite look as if inside a repository to the tests that ran after. The tests' Codex writes in its workspace only.
  '-c',
  'sandbox_workspace_write.exclude_slash_tmp=true',
  '-c',
  'sandbox_workspace_write.exclude_tmpdir_env_var=true',
];

/**
 * Codex with its own OpenAI provider (none of the test's), run as a node's agent: the key proxy (or the replay
 * proxy) points it at the server through OPENAI_BASE_URL and gives it the placeholder as CODEX_API_KEY.
 */
export function codexOwnProviderAgent(): string[] {
  return [
    codexBin ?? 'codex',
    ...CODEX_OFFLINE,
    'exec',
    '-m',
    CODEX_MODEL,
    '--skip-git-repo-check',
    '--dangerously-bypass-approvals-and-sandbox',
  ];
}

/** Codex against the scripted server: its home, and the key its provider reads. */
export function codexEnv(home: string): Record<string, string> {
  return { HOME: home, CODEX_HOME: home, SCRIPTED_OPENAI_KEY: 'sk-scripted' };
}

/** The `-c` options, given before the subcommand, that point Codex at the scripted server and nowhere else. */
export function codexConfigArgs(serverUrl: string): string[] {
  const provider = `{name="scripted",base_url="${serverUrl}/v1",env_key="SCRIPTED_OPENAI_KEY",wire_api="responses",request_max_retries=0,stream_max_retries=0}`;
  return ['-c', 'model_provider=scripted', '-c', `model_providers.scripted=${provider}`, ...CODEX_OFFLINE];
}

export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a CLI with the prompt on stdin (never blocking this process, which may host the model server). */
export function runAgent(
  file: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; stdin: string },
): Promise<AgentRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: opts.cwd, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
    });
    child.on('error', reject);
    child.stdin.end(opts.stdin);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
