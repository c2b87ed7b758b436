/**
 * The home an isolated attempt ran in (the Action as root or through sudo gives each script a fresh one,
 * `<tmp>/interlock-node-homes-<random>/home-<random>`, src/os/node-user/node-script.ts), as its recording shows it: an engine
 * writes paths under it into its requests (Claude Code names its memory folder, `<home>/.claude/projects/…`). A
 * replay of such an attempt gives the agent a fresh home of its own in the same way, without the engines' own
 * folder variables (which isolation did not set either), and reads that home's path as the recorded one.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedCall } from '../os/proxies/replay-match.js';

const NODE_HOME = /(?:\/[A-Za-z0-9._-]+)*\/interlock-node-homes-[A-Za-z0-9]+\/home-[A-Za-z0-9]+/;

/** Where the engines keep their files when told (`CLAUDE_CONFIG_DIR`...): unset, each uses the home's. */
const ENGINE_FOLDERS = ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME', 'COPILOT_HOME'];

/**
 * For a recording made in an isolated node's home: the environment the replayed agent gets (a fresh home) and the
 * pair of paths the comparison reads as one (the fresh home as the recorded). Otherwise the environment as it is.
 */
export function replayHome(
  calls: RecordedCall[],
  env: NodeJS.ProcessEnv,
): { env: NodeJS.ProcessEnv; home?: { now: string; recorded: string } } {
  const recorded = calls.map((c) => NODE_HOME.exec(c.request)?.[0]).find(Boolean);
  if (!recorded) return { env };
  const now = mkdtempSync(join(tmpdir(), 'interlock-replay-home-'));
  const out: NodeJS.ProcessEnv = { ...env, HOME: now };
  for (const name of ENGINE_FOLDERS) delete out[name];
  return { env: out, home: { now, recorded } };
}
