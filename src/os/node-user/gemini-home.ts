/**
 * Gemini CLI in an isolated node. With a base URL set (the key proxy sets GOOGLE_GEMINI_BASE_URL), headless Gemini
 * CLI counts its auth as a "gateway" and exits 41 unless its user settings select the API key; a system settings
 * file does not help (it is skipped under any world-writable folder, /tmp among them). An isolated node's home is
 * fresh for each script, and a session's folder keeps only the transcripts, so interlock gives its settings to
 * whichever folder is the node's Gemini CLI home, and nothing else: the one that selects the key (when the node
 * has a key and a base URL), and usage statistics off (`privacy.usageStatisticsEnabled`, on by default in 0.61.0,
 * which posts to play.googleapis.com).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NodeUser } from './node-user.js';

/** Whether the node's Gemini CLI needs the auth setting: a key and a base URL in its environment. */
const needsGeminiAuth = (env: NodeJS.ProcessEnv) => !!env.GEMINI_API_KEY && !!env.GOOGLE_GEMINI_BASE_URL;

/** Whether interlock gives the node Gemini CLI settings: its engine is Gemini, or it needs the auth setting. */
export const wantsGeminiSettings = (env: NodeJS.ProcessEnv) =>
  env.INTERLOCK_ENGINE === 'gemini' || needsGeminiAuth(env);

/** The settings interlock gives: usage statistics off, and the API key as the auth when the node needs it. */
function geminiSettings(env: NodeJS.ProcessEnv): string {
  const auth = needsGeminiAuth(env) ? { security: { auth: { selectedType: 'gemini-api-key' } } } : {};
  return `${JSON.stringify({ ...auth, privacy: { usageStatisticsEnabled: false } })}\n`;
}

/** The settings in a fresh home this process made (chowned to the node user with the rest of it): its paths. */
export function geminiSettingsInHome(home: string, env: NodeJS.ProcessEnv): string[] {
  const dir = join(home, '.gemini');
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(join(dir, 'settings.json'), geminiSettings(env), { mode: 0o600 });
  return [dir, join(dir, 'settings.json')];
}

/**
 * The settings in a session's folder, the node user's own (0700): written by the node user itself, refusing a
 * `.gemini` that is a link (the folder was cleared of everything but `.gemini/tmp` just before).
 */
export function geminiSettingsInSession(user: NodeUser, dir: string, env: NodeJS.ProcessEnv): void {
  const put = [
    'sh',
    '-c',
    '[ -L "$1/.gemini" ] && exit 3; mkdir -p -m 700 -- "$1/.gemini" && cat > "$1/.gemini/settings.json"',
    'gemini-settings',
    dir,
  ];
  const o = { input: geminiSettings(env), stdio: ['pipe', 'pipe', 'pipe'] as ['pipe', 'pipe', 'pipe'] };
  if (user.via === 'spawn') execFileSync(put[0]!, put.slice(1), { ...o, uid: user.uid, gid: user.gid });
  else execFileSync('sudo', ['-n', '-u', user.name, '--', ...put], o);
}
