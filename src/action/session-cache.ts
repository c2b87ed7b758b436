/**
 * The Actions cache as the session cache (`@actions/cache`, cache service v2: the runner's `ACTIONS_RESULTS_URL`
 * and `ACTIONS_RUNTIME_TOKEN`, which nodes never see). Entries are keyed by repository, run, session, engine and
 * session id (src/runner/attempt/session-carry.ts); a workflow run reads the entries of its own branch and of the default
 * branch, and people who can only read the repository cannot download any: unlike the journal branch or an
 * artifact. The library is loaded only when a step restores or saves a session (the build puts it beside the
 * bundle, as dist/actions-cache.js).
 */

/** Whether the runner gave this step the cache service, as `@actions/cache` decides it (`isFeatureAvailable`). */
function serviceConfigured(env: NodeJS.ProcessEnv): boolean {
  return env.ACTIONS_CACHE_SERVICE_V2 ? !!env.ACTIONS_RESULTS_URL : !!env.ACTIONS_CACHE_URL;
}

import type { SessionCache } from '../runner/attempt/session-carry.js';

export function actionsSessionCache(repository: string, warn: (m: string) => void): SessionCache {
  return {
    scope: repository,
    unavailable: () => {
      if (!serviceConfigured(process.env))
        return 'the Actions cache service is not configured for this step (no ACTIONS_RESULTS_URL or ACTIONS_CACHE_URL)';
      if (!process.env.ACTIONS_RUNTIME_TOKEN)
        return 'the step has no ACTIONS_RUNTIME_TOKEN for the Actions cache';
      return undefined;
    },
    restore: async (folder, cacheKey) => {
      try {
        const cache = await import('@actions/cache');
        return (await cache.restoreCache([folder], cacheKey)) === cacheKey;
      } catch (e) {
        warn(`the session cache could not be read (${(e as Error).message})`);
        return false;
      }
    },
    save: async (folder, cacheKey) => {
      try {
        const cache = await import('@actions/cache');
        await cache.saveCache([folder], cacheKey);
      } catch (e) {
        warn(`the session cache could not be written (${(e as Error).message})`);
      }
    },
  };
}
