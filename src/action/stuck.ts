import type { ActionContext, ActionResult } from './main.js';

/** Placeholder replaced below. */
export async function stuckMode(_ctx: ActionContext): Promise<ActionResult> {
  return { outputs: {}, failed: 'mode: stuck is not available in this version' };
}
