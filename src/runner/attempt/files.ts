/**
 * An attempt's own files (`$INTERLOCK_OUTPUT`, `$INTERLOCK_CONTEXT`, `$INTERLOCK_USAGE`; a chain's
 * `$INTERLOCK_OUTPUTS/<node>`), made and read back through src/os/node-user/node-files.ts: a file the node broke is a
 * failure of the attempt that names it, never a read through a link or without a bound.
 */
import {
  AttemptFiles,
  MAX_OUTPUT_FILE,
  MAX_USAGE_FILE,
  NodeFileError,
} from '../../os/node-user/node-files.js';
import { nodeUser } from '../../os/node-user/node-user.js';
import { parseOutputFile } from '../../protocol/attempt/output-file.js';
import type { AttemptOutcome } from '../../protocol/decide.js';

type Failures = AttemptOutcome['failures'];

export const OUTPUT = 'output';
export const CONTEXT = 'context.json';
export const USAGE = 'usage.json';

const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

/** One attempt's files, in a fresh folder: the outputs, the context (as JSON) and the usage file. */
export function makeAttemptFiles(context: unknown): AttemptFiles {
  return new AttemptFiles(
    'interlock-',
    [
      { name: OUTPUT, variable: '$INTERLOCK_OUTPUT', text: '' },
      { name: CONTEXT, variable: '$INTERLOCK_CONTEXT', text: json(context) },
      { name: USAGE, variable: '$INTERLOCK_USAGE', text: '' },
    ],
    nodeUser(),
  );
}

/** A chain's files: one outputs file per node (`outputs/<file>`), the chain's context and its usage file. */
export function makeChainFiles(outputFiles: string[], context: unknown): AttemptFiles {
  return new AttemptFiles(
    'interlock-chain-',
    [
      ...outputFiles.map((f) => ({ name: `outputs/${f}`, variable: `$INTERLOCK_OUTPUTS/${f}`, text: '' })),
      { name: CONTEXT, variable: '$INTERLOCK_CONTEXT', text: json(context) },
      { name: USAGE, variable: '$INTERLOCK_USAGE', text: '' },
    ],
    nodeUser(),
  );
}

/** Replaces the context the node reads (before its command starts). */
export function writeContext(files: AttemptFiles, context: unknown): void {
  files.write(CONTEXT, json(context));
}

/** A file's text; a file the node broke adds a failure naming it (check `file`) and reads as empty. */
function nodeText(files: AttemptFiles, name: string, bound: number, failures: Failures): string {
  try {
    return files.read(name, bound);
  } catch (e) {
    if (!(e instanceof NodeFileError)) throw e;
    failures.push({ check: 'file', message: e.message });
    return '';
  }
}

/** The outputs the node wrote to one outputs file; a broken file is a failure and no outputs. */
export function readOutputs(files: AttemptFiles, name: string, failures: Failures): Record<string, string> {
  return parseOutputFile(nodeText(files, name, MAX_OUTPUT_FILE, failures));
}

/** What the node wrote to `$INTERLOCK_USAGE`; a broken file is a failure. */
export function readUsageText(files: AttemptFiles, failures: Failures): string {
  return nodeText(files, USAGE, MAX_USAGE_FILE, failures);
}
