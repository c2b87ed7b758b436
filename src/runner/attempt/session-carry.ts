/**
 * A session's files across workflow runs. Nodes that run isolated keep an engine's transcripts in a folder of
 * the step's (src/os/node-user/node-script.ts), gone when the step ends. Before an attempt resumes a session whose
 * transcript is not on this machine, it is restored from the cache the face gives (the Action: the Actions cache,
 * keyed by repository, run, session, engine and session id); after an attempt that made a session, its transcripts
 * are saved there. Where there is no cache (the CLI) or it misses, the log says so and the attempt starts a fresh
 * session, whose task envelope tells it what the earlier nodes produced.
 */
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GraphNode } from '../../graph/model.js';
import { privateFolder } from '../../os/node-user/node-files.js';
import {
  holdsSession,
  MAX_TRANSCRIPTS,
  stageTranscripts,
  transcriptsDigest,
  transcriptsDir,
  unstageTranscripts,
} from '../../os/session-files.js';
import type { EngineRun } from '../../protocol/engines/engine.js';

/**
 * Why the transcripts folder `dir` is not as the journal says the session left it (`want`), or undefined when it
 * is (or the journal recorded nothing to hold it to).
 */
function unlike(dir: string, want: string | undefined): string | undefined {
  if (!want) return undefined;
  const now = transcriptsDigest(dir);
  if (!now) return 'its transcripts could not be read to check them';
  if (now.odd) return 'its transcripts folder holds a link or a special file, which no engine makes';
  if (now.sha256 !== want)
    return `its transcripts are not as the session's last attempt left them (SHA-256 ${now.sha256.slice(0, 12)}…, the journal recorded ${want.slice(0, 12)}…): a node outside the session changed them`;
  return undefined;
}

/** SHA-256 of a session's transcripts folder as an attempt's agent left it (isolated nodes), for its record. */
export function transcriptsOf(node: GraphNode, engine: string): { transcripts_sha256?: string } {
  const dir = node.session ? transcriptsDir(node.session.name, engine) : undefined;
  const digest = dir ? transcriptsDigest(dir) : undefined;
  return digest ? { transcripts_sha256: digest.sha256 } : {};
}

/** A cache that carries files between workflow runs (the Action: `@actions/cache`). */
export interface SessionCache {
  /** Whose the entries are (the repository), part of every key. */
  scope: string;
  /** Why it cannot be used in this step, or undefined when it can. */
  unavailable(): string | undefined;
  /** Restores the entry `key` into `folder`; true on a hit. Never throws. */
  restore(folder: string, cacheKey: string): Promise<boolean>;
  /** Saves `folder` as the entry `key`. Never throws. */
  save(folder: string, cacheKey: string): Promise<void>;
}

/** What carrying a session needs from the step. */
interface CarrySetup {
  sessionCache?: SessionCache;
  say?: (message: string) => void;
}

/** The cache key of one session's files: never guessable from another repository's or run's. */
function sessionCacheKey(k: { scope: string; runId: string; session: string; engine: string; id: string }) {
  return `interlock-session-${lineage(k.scope, k.runId)}-${k.session}-${k.engine}-${k.id}`;
}

/** The repository and run an entry belongs to, hashed. */
const lineage = (scope: string, runId: string) =>
  createHash('sha256').update(`${scope}\n${runId}`).digest('hex').slice(0, 24);

/**
 * The folder the cache saves from and restores into: the same path in every run of the lineage for one runner
 * user (the cache's entry version hashes its paths), outside the workspace nodes share.
 */
const staging = (cache: SessionCache, runId: string, session: string, engine: string) =>
  join(
    // One per user: a folder another user made first (another runner on the host) is never this one's.
    privateFolder(join(tmpdir(), `interlock-session-cache-${process.getuid?.() ?? 'user'}`)),
    lineage(cache.scope, runId),
    session,
    engine,
  );

/**
 * The engine run as it can be here: unchanged when it resumes nothing, runs without isolation, or finds the
 * session's transcript (on this machine or in the cache); without its resume otherwise, with the reason said.
 */
export async function carrySession(
  setup: CarrySetup,
  runId: string,
  node: GraphNode,
  run: EngineRun,
): Promise<{ run: EngineRun; fresh?: string }> {
  const resume = run.resume;
  if (!resume || !node.session) return { run };
  const dir = transcriptsDir(node.session.name, resume.engine);
  if (!dir) return { run };
  const session = node.session.name;
  const { resume: _dropped, ...rest } = run;
  const refuse = (why: string) => {
    const fresh = `session "${session}": ${why}, so "${node.id}" does not resume session ${resume.id} and starts a fresh one; its task envelope tells it what the earlier nodes produced`;
    setup.say?.(fresh);
    return { run: rest, fresh };
  };
  if (holdsSession(dir, resume.id, resume.engine)) {
    const changed = unlike(dir, resume.transcripts?.last);
    return changed ? refuse(changed) : { run };
  }
  const cache = setup.sessionCache;
  let why = cache ? cache.unavailable() : 'the Actions cache is not available here (the CLI)';
  let from: string | undefined;
  try {
    if (!why && cache) from = staging(cache, runId, session, resume.engine);
  } catch (e) {
    why = `the staging folder cannot be used (${(e as Error).message})`;
  }
  if (!why && cache && from) {
    const cacheKey = sessionCacheKey({
      scope: cache.scope,
      runId,
      session,
      engine: resume.engine,
      id: resume.id,
    });
    const hit = await cache.restore(from, cacheKey);
    if (hit) {
      try {
        unstageTranscripts(from, dir);
      } catch (e) {
        setup.say?.(
          `session "${session}": the restored files could not be put in place (${(e as Error).message})`,
        );
      }
    }
    if (hit && holdsSession(dir, resume.id, resume.engine)) {
      const changed = unlike(dir, resume.transcripts?.from);
      if (changed) return refuse(`restored from the Actions cache, ${changed}`);
      setup.say?.(`session "${session}": restored session ${resume.id} from the Actions cache`);
      return { run };
    }
  }
  const fresh = `session "${session}": the files of session ${resume.id} are not on this machine and ${why ?? 'the Actions cache has no entry for them'}, so "${node.id}" starts a fresh session; its task envelope tells it what the earlier nodes produced`;
  setup.say?.(fresh);
  return { run: rest, fresh };
}

/** After an attempt that made or continued session `id`: its transcripts saved to the cache, when there is one. */
export async function keepSession(
  setup: CarrySetup,
  runId: string,
  node: GraphNode,
  engine: string,
  id: string | undefined,
): Promise<void> {
  const cache = setup.sessionCache;
  if (!id || !node.session || !cache || cache.unavailable()) return;
  const dir = transcriptsDir(node.session.name, engine);
  if (!dir || !holdsSession(dir, id, engine)) return;
  const session = node.session.name;
  let to: string;
  try {
    to = staging(cache, runId, session, engine);
  } catch (e) {
    setup.say?.(`session "${session}": not saved to the Actions cache: ${(e as Error).message}`);
    return;
  }
  if (!stageTranscripts(dir, to)) {
    setup.say?.(
      `session "${session}": not saved to the Actions cache: its transcripts could not be read or hold more than ${MAX_TRANSCRIPTS} bytes`,
    );
    return;
  }
  await cache.save(to, sessionCacheKey({ scope: cache.scope, runId, session, engine, id }));
}
