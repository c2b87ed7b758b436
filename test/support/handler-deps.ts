// The approval handler's dependencies as a face builds them: the repository's config read from the default branch
// through the one loader (src/config/load.ts), once per deps object.
import type { HandlerDeps } from '../../src/approvals/deps.js';
import { configLoader } from '../../src/config/load.js';
import { defaultBranchReader } from '../../src/github/repo-text.js';

export function handlerDeps(deps: Omit<HandlerDeps, 'config'>): HandlerDeps {
  return { ...deps, config: configLoader(defaultBranchReader(deps.octokit, deps.repo)) };
}
