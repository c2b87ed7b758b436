/**
 * Gemini CLI in an isolated node. With a base URL set (the key proxy sets GOOGLE_GEMINI_BASE_URL), headless Gemini
 * CLI counts its auth as a "gateway" and exits 41 unless its user settings select the API key; a system settings
 * file does not help (it is skipped under any world-writable folder, /tmp among them). An isolated node's home is
 * fresh for each script, and a session's folder keeps only the transcripts, so interlock gives the settings that
 * select the key to whichever folder is the node's Gemini CLI home, and nothing else.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NodeUser } from './node-user.js';

/** The one setting interlock gives: the API key as Gemini CLI's auth. */
const GEMINI_AUTH_SETTINGS = `${JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } })}\n`;

/** Whether the node's Gemini CLI needs the setting: a key and a base URL in its environment. */
export const needsGeminiAuth = (env: NodeJS.ProcessEnv) =>
  !!env.GEMINI_API_KEY && !!env.GOOGLE_GEMINI_BASE_URL;

/** The settings in a fresh home this process made (chowned to the node user with the rest of it): its paths. */
export function geminiSettingsInHome(home: string): string[] {
  const dir = join(home, '.gemini');
  mkdirSync(dir, { mode: 0o700 });
  writeFileSync(join(dir, 'settings.json'), GEMINI_AUTH_SETTINGS, { mode: 0o600 });
  return [dir, join(dir, 'settings.json')];
}

/**
 * The settings in a session's folder, the node user's own (0700): written by the node user itself, refusing a
 * `.gemini` that is a link (the folder was cleared of everything but `.gemini/tmp` just before).
 */
export function geminiSettingsInSession(user: NodeUser, dir: string): void {
  const put = [
    'sh',
    '-c',
    '[ -L "$1/.gemini" ] && exit 3; mkdir -p -m 700 -- "$1/.gemini" && cat > "$1/.gemini/settings.json"',
    'gemini-settings',
    dir,
  ];
  const o = { input: GEMINI_AUTH_SETTINGS, stdio: ['pipe', 'pipe', 'pipe'] as ['pipe', 'pipe', 'pipe'] };
  if (user.via === 'spawn') execFileSync(put[0]!, put.slice(1), { ...o, uid: user.uid, gid: user.gid });
  else execFileSync('sudo', ['-n', '-u', user.name, '--', ...put], o);
}
