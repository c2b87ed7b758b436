// The one loader of `.github/interlock.yml` (src/config/load.ts): read at most once per loader, the same answer
// however it is asked, and the only place in src/ that parses the file.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONFIG_PATH, configDefaults, configLoader } from '../../src/config/load.js';
import { GraphError } from '../../src/graph/errors.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** A loader over a reader that counts its reads and what paths it was asked for. */
function counted(text: string | undefined) {
  const asked: string[] = [];
  const loader = configLoader(async (path) => {
    asked.push(path);
    return text;
  });
  return { loader, asked };
}

describe('configLoader', () => {
  it('reads the file once however many rules ask, in whatever way', async () => {
    const { loader, asked } = counted('budget:\n  daily_usd: 5\napprovals:\n  required: 2\n');
    const [a, b] = await Promise.all([loader.file(), loader.file()]);
    expect(a?.budget?.daily_usd).toBe(5);
    expect(b).toBe(a);
    expect((await loader.orDefaults()).approvals?.required).toBe(2);
    expect(await loader.text()).toContain('daily_usd: 5');
    expect(asked).toEqual([CONFIG_PATH]);
  });

  it('no file: undefined, or the defaults when asked for them', async () => {
    const { loader, asked } = counted(undefined);
    expect(await loader.file()).toBeUndefined();
    expect(await loader.orDefaults()).toEqual(configDefaults());
    expect(await loader.text()).toBeUndefined();
    expect(asked).toHaveLength(1);
  });

  it('an invalid file: the same located error each time, read once', async () => {
    const { loader, asked } = counted('budget:\n  daily_usd: -1\n');
    const first = await loader.file().catch((e: unknown) => e);
    expect(first).toBeInstanceOf(GraphError);
    expect((first as GraphError).errors[0]).toMatchObject({ file: CONFIG_PATH, line: 2 });
    await expect(loader.orDefaults()).rejects.toBe(first);
    expect(asked).toHaveLength(1);
  });
});

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('one loader', () => {
  it('no file of src/ but the loader parses the config, and the Action reads it without approvals/', () => {
    const found: string[] = [];
    for (const path of sources(join(ROOT, 'src'))) {
      const file = relative(ROOT, path);
      const code = readFileSync(path, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '');
      if (file !== 'src/config/load.ts' && /\bparseConfig\(|ConfigSchema\.(safe)?[pP]arse/.test(code))
        found.push(`${file}: parses the config itself (ask a configLoader)`);
      if (file.startsWith('src/action/') && /from '[./]*approvals\/lookup\/repo-files\.js'/.test(code))
        found.push(`${file}: reads through approvals/ (use ctx.config)`);
    }
    expect(found).toEqual([]);
  });
});
