/**
 * The repository's approval rules as the step's checkout holds them (`.github/interlock.yml`), for the words of
 * a gate's attention comment: the count it names is the strictest of the repository's, the graph's and the
 * node's, as `/approve` counts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseConfig } from '../config/load.js';
import type { RepoApprovals } from '../protocol/policy.js';
import { type ActionContext, CONFIG_FILE, inWorkspace } from './context.js';

/** The checkout's `approvals`, or undefined without a readable configuration (routing reports a bad one). */
export function workspaceApprovals(ctx: ActionContext): RepoApprovals | undefined {
  const path = inWorkspace(ctx, CONFIG_FILE);
  if (!existsSync(path)) return undefined;
  try {
    return parseConfig(CONFIG_FILE, readFileSync(path, 'utf8')).approvals;
  } catch {
    return undefined;
  }
}
