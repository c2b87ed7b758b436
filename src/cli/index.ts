#!/usr/bin/env node
import { installSignalHandlers, main } from './main.js';

installSignalHandlers();
main(process.argv.slice(2), {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  cwd: process.cwd(),
  env: process.env,
  ...(process.stdout.isTTY && process.stdout.columns ? { columns: process.stdout.columns } : {}),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`interlock: unexpected error: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exitCode = 1;
  },
);
