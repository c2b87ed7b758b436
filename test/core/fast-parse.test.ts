import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GraphError } from '../../src/graph/errors.js';
import { parseGraph } from '../../src/graph/load/load.js';
import { parseCarefully, parseSource } from '../../src/graph/load/source.js';

const root = new URL('../..', import.meta.url).pathname;

function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...yamlFiles(p));
    else if (/\.(ya?ml)$/.test(e)) out.push(p);
  }
  return out;
}

describe('the fast YAML path reads what the careful parser reads', () => {
  const files = [...yamlFiles(join(root, 'examples')), join(root, '.github/workflows/ci.yml')];
  for (const f of files) {
    it(`${f.slice(root.length)} parses to the same data both ways`, () => {
      const text = readFileSync(f, 'utf8');
      expect(parseSource(f, text).data).toEqual(parseCarefully(f, text).data);
    });
  }

  it('scalars the YAML 1.1 and 1.2 schemas disagree on read the same both ways', () => {
    const text = 'a: yes\nb: on\nc: 0o17\nd: 010\ne: .inf\nf: 2026-01-01\ng: ~\nh: "1e3"\ni: 1e3\nj: 0x1F\n';
    expect(parseSource('s.yml', text).data).toEqual(parseCarefully('s.yml', text).data);
  });

  it('a graph with aliases goes the careful way, where an alias bomb is refused with its position', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 12; i++)
      lines.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`,
      );
    const text = `interlock: 1\nname: bomb\nnodes:\n  - id: a\n    run: echo\n${lines.map((l) => `x-${l}`).join('\n')}\n`;
    const start = Date.now();
    expect(() => parseGraph({ path: 'bomb.yml', text })).toThrow(GraphError);
    expect(Date.now() - start).toBeLessThan(5000);
  });

  it('a duplicate key found by the fast parser is reported with its line by the careful one', () => {
    const text = 'interlock: 1\nname: dup\nname: dup2\nnodes:\n  - id: a\n    run: echo\n';
    expect(() => parseGraph({ path: 'dup.yml', text })).toThrow(/^dup\.yml:3:1: "name" appears twice/);
  });
});
