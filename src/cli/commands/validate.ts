/** `interlock validate <graph>`: loads the graph and says what it holds, or why it does not load. */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Graph } from '../../graph/model.js';
import { duplicateEngineFlags } from '../../protocol/engines/agent-setup.js';
import { loadGraphFile } from '../../runner/journal-io/graph-file.js';
import { EXIT, type Io, UsageError } from '../io.js';

export function cmdValidate(io: Io, args: string[]): number {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new UsageError('usage: interlock validate <graph>');
  const graph = loadGraphFile(resolve(io.cwd, positionals[0]!));
  io.out(`${positionals[0]}: ok — graph "${graph.name}", ${graph.nodes.length} node(s), ${graph.hash}\n`);
  for (const w of new Set(engineFlagWarnings(graph))) io.err(`${positionals[0]}: warning: ${w}\n`);
  return EXIT.ok;
}

/** Where an agent line gives a flag its `engine:` appends too (a usage error when it runs, for Codex). */
export function engineFlagWarnings(graph: Pick<Graph, 'nodes'>, under = ''): string[] {
  return graph.nodes.flatMap((n) => [
    ...n.approaches.flatMap((a) => {
      const twice = a.engine && a.agent ? duplicateEngineFlags(a.agent, a.engine) : [];
      return twice.length
        ? [
            `node "${under}${n.id}" (${a.label}): \`engine: ${a.engine}\` appends ${twice.join(', ')} itself; remove ${twice.length > 1 ? 'them' : 'it'} from \`agent:\` (the agent's CLI may refuse a flag given twice)`,
          ]
        : [];
    }),
    ...(n.subgraph ? engineFlagWarnings(n.subgraph.graph, `${under}${n.id}/`) : []),
  ]);
}
