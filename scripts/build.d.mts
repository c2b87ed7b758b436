import type { Metafile } from 'esbuild';

/**
 * Bundles one ESM entry (a path from the repository's root) into `outfile`; `action`: the Action's entries, with
 * only the REST methods src/ calls; see build.mjs.
 */
export function bundle(entry: string, outfile: string, options?: { action?: boolean }): Promise<Metafile>;

/** The REST methods the TypeScript files under `srcDir` (default src/) call, as `scope.method`; see build.mjs. */
export function restMethodsUsed(srcDir?: string): Set<string>;
