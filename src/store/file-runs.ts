/**
 * The runs in a folder of file-store journals (the CLI's `.interlock/runs`): every `<run-id>.json` below it,
 * the run id being the path under the folder, so `fix/issue-42.json` holds run `fix/issue-42`. An attempt's live
 * view beside its journal (`<run-id>.live.json`) is not a run. Links are not followed: what a node may have
 * planted in the folder is not read as a journal.
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { sha256 } from '../graph/canonical.js';
import { byRunId, type ListedRun, type ListedText, type RunCatalog } from './types.js';

/** The name of an attempt's live view beside its journal (`src/cli/live-file.ts` writes it). */
const LIVE = '.live.json';

function jsonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return jsonFiles(path);
    return e.isFile() && e.name.endsWith('.json') && !e.name.endsWith(LIVE) ? [path] : [];
  });
}

/** A file's modification time; undefined when it is gone since the folder was read. */
function modifiedAt(path: string): number | undefined {
  try {
    return lstatSync(path).mtimeMs;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** A folder of journals as a catalog of runs. */
export class FileRuns implements RunCatalog {
  constructor(readonly location: string) {}

  async listRuns(): Promise<ListedRun[] | null> {
    return this.listNow();
  }

  /** The same listing, at once (the CLI picks a run before anything async starts). */
  listNow(): ListedRun[] | null {
    let files: string[];
    try {
      files = jsonFiles(this.location);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    return files
      .flatMap((where) => {
        const runId = relative(this.location, where).split(sep).join('/').slice(0, -5);
        const modifiedMs = modifiedAt(where);
        return modifiedMs === undefined ? [] : [{ runId, where, modifiedMs }];
      })
      .sort(byRunId);
  }

  async readText(run: ListedRun): Promise<ListedText | null> {
    let text: string;
    try {
      text = readFileSync(run.where, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    return { text, version: sha256(text), where: run.where };
  }
}
