import { statusOf } from '../github/status.js';
import type { HandlerDeps } from './deps.js';

/** The subject label a run id ends with: `issue-<n>` or `pr-<n>`. */
export function subjectLabel(issue: { number: number; pull_request?: unknown }): string {
  return `${issue.pull_request ? 'pr' : 'issue'}-${issue.number}`;
}

/** The subject a run id names by its last part, when it names one. */
export function subjectOfRun(runId: string): { kind: 'issue' | 'pr'; number: number } | undefined {
  const m = /(?:^|\/)(issue|pr)-(\d+)$/.exec(runId);
  return m ? { kind: m[1] as 'issue' | 'pr', number: Number(m[2]) } : undefined;
}

/** Run ids from journal paths (`runs/<run-id>.json`). Pure. */
export function runIdsOf(paths: readonly string[]): string[] {
  return paths.flatMap((p) => {
    const m = /^runs\/(.+)\.json$/.exec(p);
    return m ? [m[1]!] : [];
  });
}

/** The runs about one subject: run ids whose file name is `issue-<n>.json` or `pr-<n>.json`. Pure. */
export function runsAbout(runIds: readonly string[], label: string): string[] {
  return runIds.filter((id) => id === label || id.endsWith(`/${label}`)).sort();
}

/** Every run id on the journal branch, from one recursive tree read; none when the branch does not exist. */
export async function listRunIds(deps: HandlerDeps): Promise<string[]> {
  try {
    const r = await deps.octokit.rest.git.getTree({
      ...deps.repo,
      tree_sha: deps.journalBranch,
      recursive: '1',
    });
    if (r.data.truncated)
      deps.log?.(`the ${deps.journalBranch} tree is truncated; some runs may be missing from the list`);
    return runIdsOf(r.data.tree.flatMap((t) => (t.type === 'blob' && t.path ? [t.path] : [])));
  } catch (e) {
    // 404: no journal branch yet; 409: an empty repository.
    if (statusOf(e) === 404 || statusOf(e) === 409) return [];
    throw e;
  }
}
