import type { Metafile } from 'esbuild';

/** Bundles one ESM entry (a path from the repository's root) into `outfile`; see build.mjs. */
export function bundle(entry: string, outfile: string): Promise<Metafile>;
