/**
 * The recording of an attempt the Action ran (issue 48), when it is not on this machine yet: the workflow artifact
 * the journal names is found through the REST API (the run's artifacts listed by name) with GH_TOKEN or
 * GITHUB_TOKEN (GITHUB_API_URL for GitHub Enterprise Server), downloaded, and the file read out of it; its SHA-256
 * is checked against the journal's before anything is written, then it is kept at the journal's path (mode 0600),
 * where `interlock replay` reads it as any recording. A refusal writes nothing.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, lstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { artifactFile } from '../github/artifact-download.js';
import { createClient } from '../github/client.js';
import { RECORDING_BYTES } from '../os/proxies/key-proxy-tab.js';
import { confineToWorkspace } from '../os/workspace-path.js';
import type { RecordingRef } from '../runner/replay.js';
import { type Io, UsageError } from './io.js';

/** Whether something (even a broken link) is at `full`. */
function present(full: string): boolean {
  try {
    lstatSync(full);
    return true;
  } catch {
    return false;
  }
}

/** Writes a new file, never through a link and never over one that is there. */
function writeNew(full: string, data: Buffer): void {
  mkdirSync(dirname(full), { recursive: true, mode: 0o700 });
  const fd = openSync(
    full,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    writeSync(fd, data);
  } finally {
    closeSync(fd);
  }
}

/** Downloads the recording from its artifact when the journal names one and it is not here; else does nothing. */
export async function fetchRecording(io: Io, ref: RecordingRef): Promise<void> {
  const full = confineToWorkspace(io.cwd, ref.path, 'the recording path in the journal');
  const a = ref.artifact;
  if (!a || present(full)) return;
  const where = `the artifact "${a.name}" of workflow run ${a.workflow_run_id} of ${a.repository}`;
  const token = io.env.GH_TOKEN || io.env.GITHUB_TOKEN;
  if (!token)
    throw new UsageError(
      `the recording ${ref.path} is in ${where}: set GH_TOKEN (or GITHUB_TOKEN) to a token that can read the repository, or download the artifact and unzip it here; nothing was replayed`,
    );
  const octokit = createClient({
    token,
    baseUrl: io.env.GITHUB_API_URL || 'https://api.github.com',
    retries: 1,
    retryAfterBaseValue: 200,
  });
  let got: Buffer | string;
  try {
    got = await artifactFile(octokit, a, ref.path, RECORDING_BYTES + 1_000_000);
  } catch (e) {
    throw new UsageError(`${where} could not be downloaded (${(e as Error).message}); nothing was replayed`);
  }
  if (typeof got === 'string') throw new UsageError(`${got}; nothing was replayed`);
  const sha = createHash('sha256').update(got).digest('hex');
  if (sha !== ref.sha256)
    throw new UsageError(
      `the recording ${ref.path} in ${where} is not the one the journal recorded (its SHA-256 is ${sha}, the journal's ${ref.sha256}): it changed since the run, so nothing was replayed`,
    );
  writeNew(full, got);
  io.err(`interlock: downloaded ${ref.path} from ${where}; its SHA-256 is the journal's\n`);
}
