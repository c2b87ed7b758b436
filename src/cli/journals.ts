/**
 * Where the CLI's journals are: `.interlock/runs/<run-id>.json` unless --journal names one, the run found when
 * the folder holds exactly one, and an existing run opened with the graph it names.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import type { Graph } from '../graph/model.js';
import type { Journal } from '../journal/events/events.js';
import { journalGraphPath } from '../journal/graph-path.js';
import { runIdProblem } from '../journal/run-id.js';
import { confineToWorkspace, PathRefused, relativeToWorkspace } from '../os/workspace-path.js';
import { loadGraphFile } from '../runner/journal-io/graph-file.js';
import type { RunSetup } from '../runner/journal-io/read.js';
import { FileStore } from '../store/file.js';
import { FileRuns } from '../store/file-runs.js';
import type { ListedRun } from '../store/types.js';
import { type Io, UsageError } from './io.js';

/** The options that name a run, shared by the verbs that work on an existing one. */
export const runOptions = {
  journal: { type: 'string' },
  'run-id': { type: 'string' },
  graph: { type: 'string' },
} as const;

export function checkRunId(id: string): string {
  const problem = runIdProblem(id);
  if (problem) throw new UsageError(`run id "${id}" is not allowed: ${problem}`);
  return id;
}

/** The default folder of journals: .interlock/runs under the working directory. */
function defaultRunsDir(io: Io): string {
  return resolve(io.cwd, '.interlock', 'runs');
}

/** What interlock writes into the `.interlock/` folder it makes, so that git never sees its journals and logs. */
const IGNORE_EVERYTHING =
  '# Written by interlock when it made this folder: its journals and logs stay out of git.\n*\n';

/**
 * Makes `.interlock/` with a `.gitignore` of `*` in it (as other tools do with the folders they own) when a run's
 * journal goes there and the folder does not exist yet: a first `git add -A` then adds none of it, and a check
 * such as `git status --porcelain` sees only what the nodes changed. A folder that is already there is left as
 * it is (someone may keep their journals in git on purpose).
 */
export function makeRunsFolder(io: Io, journalFile: string): void {
  const folder = resolve(io.cwd, '.interlock');
  const rel = relative(folder, journalFile);
  if (rel.startsWith('..') || rel.startsWith(sep)) return;
  try {
    mkdirSync(folder);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw e;
  }
  writeFileSync(join(folder, '.gitignore'), IGNORE_EVERYTHING);
}

/**
 * The runs in a folder of journals, as every face of the CLI lists them (`FileRuns`: links not followed, live views
 * left out); none when the folder does not exist.
 */
export function runsIn(dir: string): ListedRun[] {
  return new FileRuns(dir).listNow() ?? [];
}

export function journalPath(io: Io, journal: string | undefined, runId: string | undefined): string {
  if (journal) return resolve(io.cwd, journal);
  if (runId) return join(defaultRunsDir(io), `${checkRunId(runId)}.json`);
  // With one run in the default folder, there is nothing to ask.
  const found = runsIn(defaultRunsDir(io));
  if (found.length === 1) return found[0]!.where;
  throw new UsageError(
    found.length
      ? `${found.length} runs in .interlock/runs (${found.map((r) => r.runId).join(', ')}): name one with --run-id ID`
      : 'no run in .interlock/runs: name the journal with --journal F, or start a run with "interlock run <graph>"',
  );
}

export function selectJournal(
  io: Io,
  values: { journal?: string | undefined; 'run-id'?: string | undefined },
): string {
  return journalPath(io, values.journal, values['run-id']);
}

/**
 * The graph of an existing run: `--graph FILE` when given, else the path its journal names (an absolute path an
 * older release wrote is read as the relative path it stands for, src/journal/graph-path.ts); its path always
 * relative to the repository. A journal's path refused, or a graph that is not there, is one line naming the
 * fix (`--graph FILE`).
 */
function existingGraph(io: Io, journalFile: string, journal: Journal, given: string | undefined): Graph {
  if (given !== undefined) {
    const rel = relativeToWorkspace(io.cwd, given, '--graph');
    const full = confineToWorkspace(io.cwd, rel, '--graph');
    if (!existsSync(full)) throw new UsageError(`--graph ${given}: no such file`);
    return { ...loadGraphFile(full), path: rel };
  }
  const shown = relative(io.cwd, journalFile) || journalFile;
  const named = journalGraphPath(journal);
  let rel: string;
  let full: string;
  try {
    rel = relativeToWorkspace(io.cwd, named, `the graph path in ${shown}`);
    full = confineToWorkspace(io.cwd, rel, `the graph path in ${shown}`);
  } catch (e) {
    if (!(e instanceof PathRefused)) throw e;
    throw new UsageError(
      `${shown} names its graph ${JSON.stringify(named)}, which is not read (${e.reason}): name the run's graph with --graph FILE`,
    );
  }
  if (!existsSync(full))
    throw new UsageError(
      `${shown} names its graph ${rel}, which is not there: restore it, or name the run's graph with --graph FILE`,
    );
  return { ...loadGraphFile(full), path: rel };
}

/** Opens an existing run for status and a person's commands: the journal, and the graph it names. */
export async function openExisting(
  io: Io,
  run: { journalFile: string; graphPath: string | undefined; allowChangeBy?: string | undefined },
) {
  const store = new FileStore(run.journalFile);
  const stored = await store.read();
  if (!stored)
    throw new UsageError(`no journal at ${run.journalFile}: start the run with "interlock run <graph>"`);
  const graph = existingGraph(io, run.journalFile, stored.journal, run.graphPath);
  const setup: RunSetup = {
    graph,
    store,
    runId: stored.journal.run_id,
    start: { intent: '', subject: '', inputs: {}, github: null },
    ...(run.allowChangeBy ? { allowGraphChangeBy: run.allowChangeBy } : {}),
  };
  return { graph, setup, store };
}
