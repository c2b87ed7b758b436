import { createRequire } from 'node:module';

/**
 * Node's built-in modules that only some paths need (running a command, the check-run store's gzip), loaded on
 * first use rather than when a step starts: every built-in loaded at start-up adds to the Action's cold start.
 * A built-in needs no bundling, so the runtime `require` serves in dist/, under tsx and under vitest alike.
 */
const nodeRequire = createRequire(import.meta.url);

export const childProcess = (): typeof import('node:child_process') => nodeRequire('node:child_process');
export const zlib = (): typeof import('node:zlib') => nodeRequire('node:zlib');
export const http = (): typeof import('node:http') => nodeRequire('node:http');
export const net = (): typeof import('node:net') => nodeRequire('node:net');
export const dns = (): typeof import('node:dns/promises') => nodeRequire('node:dns/promises');
export const https = (): typeof import('node:https') => nodeRequire('node:https');
