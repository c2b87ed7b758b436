/**
 * The runs in a folder of file-store journals (the CLI's `.interlock/runs`): every `<run-id>.json` below it,
 * the run id being the path under the folder, so `fix/issue-42.json` holds run `fix/issue-42`.
 */
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { byRunId, type ListedRun, type RunCatalog } from './types.js';

function jsonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return jsonFiles(path);
    return e.isFile() && e.name.endsWith('.json') ? [path] : [];
  });
}

/** A folder of journals as a catalog of runs. */
export class FileRuns implements RunCatalog {
  constructor(readonly location: string) {}

  async listRuns(): Promise<ListedRun[] | null> {
    let files: string[];
    try {
      files = jsonFiles(this.location);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    return files
      .map((where) => ({ runId: relative(this.location, where).split(sep).join('/').slice(0, -5), where }))
      .sort(byRunId);
  }
}
