/** `interlock validate <graph>`: loads the graph and says what it holds, or why it does not load. */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadGraphFile } from '../../runner/graph-file.js';
import { EXIT, type Io, UsageError } from '../io.js';

export function cmdValidate(io: Io, args: string[]): number {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new UsageError('usage: interlock validate <graph>');
  const graph = loadGraphFile(resolve(io.cwd, positionals[0]!));
  io.out(`${positionals[0]}: ok — graph "${graph.name}", ${graph.nodes.length} node(s), ${graph.hash}\n`);
  return EXIT.ok;
}
