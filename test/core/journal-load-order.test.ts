// Each journal module loads first, alone, in a fresh module graph: the reducers form no import circle, so no
// module reads another's value before that one has run. Issue 36: loading a sub-reducer file first threw
// "Cannot access 'nodeAwaitingApproval' before initialization" while the parts imported `reducers.ts` back.
// The core is compiled file by file (no bundle: a bundle turns `const` into `var` and hides the error) and each
// module is loaded by a plain Node process of its own (Vitest's module runner reads such a value as undefined).
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// Inside the repository, so that the compiled files find node_modules.
const OUT = join(ROOT, 'node_modules/.cache', `journal-load-${process.pid}`);
afterAll(() => rmSync(OUT, { recursive: true, force: true }));

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Loads one compiled module as the first of a fresh process; the error it threw, or ''. */
async function loadAlone(file: string): Promise<string> {
  try {
    await promisify(execFile)(process.execPath, ['-e', `import(${JSON.stringify(file)})`]);
    return '';
  } catch (e) {
    const stderr = String((e as { stderr?: string }).stderr ?? e);
    return stderr.split('\n').find((l) => /Error/.test(l)) ?? stderr;
  }
}

describe('the journal modules load in any order', () => {
  it('loads each module of src/journal/ first, alone, without an error', async () => {
    const core = ['expressions', 'graph', 'journal'].flatMap((d) => tsFiles(join(ROOT, 'src', d)));
    mkdirSync(OUT, { recursive: true });
    writeFileSync(join(OUT, 'package.json'), '{"type":"module"}');
    await build({ entryPoints: core, outbase: ROOT, outdir: OUT, format: 'esm', logLevel: 'silent' });
    const journal = core
      .filter((f) => f.includes('/src/journal/'))
      .map((f) => join(OUT, relative(ROOT, f).replace(/\.ts$/, '.js')));
    expect(journal.length).toBeGreaterThan(20);
    const failed: string[] = [];
    for (let i = 0; i < journal.length; i += 4) {
      const batch = journal.slice(i, i + 4);
      const errors = await Promise.all(batch.map(loadAlone));
      for (const [j, f] of batch.entries()) if (errors[j]) failed.push(`${relative(OUT, f)}: ${errors[j]}`);
    }
    expect(failed, failed.join('\n')).toEqual([]);
  });
});
