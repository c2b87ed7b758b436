/**
 * The journal stores of one step never go back in time (store/fresh.ts): one `FreshStore` per run for the step's
 * life, so every read the step makes knows what its earlier reads and writes saw. What others wrote before the
 * step started (a person's approval, the jobs before a join) it sees by the stale window instead
 * (`RunSetup.staleRead`).
 */
import { requestsMade } from '../../github/client.js';
import { FreshStore } from '../../store/fresh.js';
import type { JournalStore } from '../../store/types.js';
import type { ActionContext } from './context.js';

const stores = new WeakMap<ActionContext, Map<string, FreshStore>>();

/** This step's store for `runId` (made by `make` the first time). */
export function freshStore(ctx: ActionContext, runId: string, make: () => JournalStore): FreshStore {
  const mine = stores.get(ctx) ?? new Map<string, FreshStore>();
  stores.set(ctx, mine);
  let store = mine.get(runId);
  if (!store) {
    store = new FreshStore(make());
    mine.set(runId, store);
  }
  return store;
}

/**
 * The step log's count of the requests this step sent, and of the content-creating ones (POST, PUT, PATCH,
 * DELETE): GitHub allows 80 of those a minute and 500 an hour per token, shared by every job of the repository.
 */
export function reportRequests(ctx: ActionContext): void {
  const r = requestsMade(ctx.octokit);
  if (r.all === 0) return;
  ctx.io.info(
    `interlock: this step sent ${r.all} GitHub request${r.all === 1 ? '' : 's'}, ${r.creating} of them content-creating (GitHub's secondary limit: 80 a minute, 500 an hour per token, shared by every job)`,
  );
}

/** The step log's count of reads GitHub answered from the past (each read again); nothing when there were none. */
export function reportStaleReads(ctx: ActionContext): void {
  for (const store of stores.get(ctx)?.values() ?? []) {
    if (store.staleAnswers > 0)
      ctx.io.info(
        `interlock: ${store.location}: GitHub answered ${store.staleAnswers} read${store.staleAnswers === 1 ? '' : 's'} from the past (older than this step already knew); each was read again, none was acted on`,
      );
  }
}
