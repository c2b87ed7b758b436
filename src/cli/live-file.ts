/**
 * The agent live in the terminal (issue 38): `interlock run` prints a line per step of an engine's agent and keeps
 * its live view in `<journal>.live.json` (rewritten at most every 2 s, removed when the attempt ends), which
 * `interlock status` shows while the attempt is in flight.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { secretValues } from '../os/node-user/node-credentials.js';
import { valueWithoutSecrets } from '../render/door.js';
import { type LiveView, liveStepLine, liveText } from '../render/live/live.js';
import type { LiveSink } from '../runner/attempt/agent-run.js';
import { pacedLive } from '../runner/attempt/live-pacer.js';
import type { RunSnapshot } from '../runner/journal-io/read.js';
import type { Io } from './io.js';

const FILE_INTERVAL_MS = 2000;

function liveFileOf(journalFile: string): string {
  return `${journalFile.replace(/\.json$/, '')}.live.json`;
}

/** The CLI's live sink of one attempt. */
export function cliLive(io: Io, journalFile: string): LiveSink {
  const file = liveFileOf(journalFile);
  // The agent's steps never reach the journal, whose secrets are removed: the file and the lines lose them here.
  const secrets = secretValues(io.env);
  const write = async (v: LiveView) => {
    writeFileSync(`${file}.tmp`, `${JSON.stringify(valueWithoutSecrets(v, secrets))}\n`);
    renameSync(`${file}.tmp`, file);
  };
  const paced = pacedLive(FILE_INTERVAL_MS, write, () => {}, Date.now);
  return {
    step: (view, steps) => {
      for (const s of steps) io.err(`interlock: ${liveStepLine(view.node, s, secrets)}\n`);
      paced.push(view);
    },
    end: async (view) => {
      await paced.end(view);
      rmSync(file, { force: true });
    },
  };
}

/** The live view of the attempt in flight, for `interlock status`; empty when there is none. */
export function liveStatus(journalFile: string, cur: RunSnapshot): string {
  let v: LiveView;
  try {
    v = JSON.parse(readFileSync(liveFileOf(journalFile), 'utf8')) as LiveView;
  } catch {
    return '';
  }
  const p = cur.state.nodes.get(v.node);
  if (p?.state !== 'in_flight' || p.dispatch?.attempt !== v.attempt) return '';
  return `\nthe agent at work (as of ${Math.round(v.elapsedMs / 1000)}s into its attempt):\n${liveText(v)}\n`;
}
