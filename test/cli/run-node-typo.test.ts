// `interlock run <graph> --node <typo>`: refused as bad input (exit 2) with the closest node id, and no run is
// made (no journal, no runs folder), so the next `run` starts as if the typo never happened.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'interlock-node-typo-'));
  writeFileSync(
    join(dir, 'g.yml'),
    'interlock: 1\nname: typo\nnodes:\n  - id: implement\n    run: echo hi\n  - id: review\n    run: echo ok\n    depends_on: [implement]\n',
  );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    cwd: dir,
    env: { ...process.env, GIT_DIR: undefined } as NodeJS.ProcessEnv,
  });
  return { code, out, err };
}

describe('run --node with an id the graph lacks', () => {
  it('exits 2 naming the closest id and every id, and makes no run', async () => {
    const r = await cli('run', 'g.yml', '--node', 'implment');
    expect(r.code).toBe(EXIT.usage);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--node "implment": g.yml has no node of that id (did you mean "implement"?)');
    expect(r.err).toContain('its nodes: implement, review');
    expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
    expect(existsSync(join(dir, '.interlock'))).toBe(false);
  });

  it('a node id far from every other gets the list without a guess', async () => {
    const r = await cli('run', 'g.yml', '--node', 'zzz');
    expect(r.code).toBe(2);
    expect(r.err).not.toContain('did you mean');
    expect(r.err).toContain('its nodes: implement, review');
  });

  it('the id spelled right runs that node', async () => {
    const r = await cli('run', 'g.yml', '--node', 'implement');
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, '.interlock'))).toBe(true);
  });
});
