// The golden journals under test/fixtures/journals/ (see its README): each with its graph and committed checkpoint.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { parseGraph } from '../../src/graph/load/load.js';
import { parseJournal } from '../../src/journal/parse.js';

const dir = new URL('../fixtures/journals/', import.meta.url).pathname;
export const goldens = readdirSync(dir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

export function loadGolden(name: string) {
  const read = (f: string) => readFileSync(join(dir, name, f), 'utf8');
  const text = read('journal.json');
  const journal = parseJournal(text, `${name}/journal.json`);
  // A sub-graph's file is beside graph.yml, under the name the graph gives it.
  const readGraph = (p: string) => {
    const file = join(dir, name, posix.relative(posix.dirname(journal.graph.path), p));
    return existsSync(file)
      ? { source: { path: p, text: readFileSync(file, 'utf8') }, readSkill: () => undefined }
      : undefined;
  };
  const graph = parseGraph({ path: journal.graph.path, text: read('graph.yml') }, undefined, { readGraph });
  return { text, journal, graph, checkpoint: read('checkpoint.json') };
}
