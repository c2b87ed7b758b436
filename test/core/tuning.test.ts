// The INTERLOCK_* tuning variables (src/os/tuning.ts): each parsed by the schema with its default, a bad value
// refused in one line that names the variable and the fix, and docs/tuning.md listing exactly the variables the
// schema has, each with its default. Every INTERLOCK_* name src/ reads from an environment is one of them, one
// of the App's settings (src/app/env.ts), or one interlock gives a node's process itself.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ServerEnvSchema } from '../../src/app/env.js';
import { readTuning, TUNING } from '../../src/os/tuning.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Variables interlock sets for a node's processes (docs/agents.md, docs/graphs.md), not tuning it reads. */
const GIVEN_TO_NODES = [
  'INTERLOCK_ATTEMPT',
  'INTERLOCK_CHAIN',
  'INTERLOCK_CONTEXT',
  'INTERLOCK_ENGINE',
  'INTERLOCK_EXEC_TAG',
  'INTERLOCK_IDEMPOTENCY_KEY',
  'INTERLOCK_NODE',
  'INTERLOCK_OUTPUT',
  'INTERLOCK_OUTPUTS',
  'INTERLOCK_RUN_ID',
  'INTERLOCK_SESSION',
  'INTERLOCK_USAGE',
];
/** The crash points of the reliability suite (src/os/crash-failpoint.ts), a test hook and no tuning. */
const TEST_HOOKS = ['INTERLOCK_FAILPOINTS'];

describe('the tuning schema', () => {
  it('takes the defaults when unset or empty, and the values given', () => {
    const defaults = readTuning({});
    for (const [name, spec] of Object.entries(TUNING))
      expect(defaults[name as keyof typeof TUNING]).toBe(spec.default);
    expect(readTuning({ INTERLOCK_STALE_READ_MS: '' }).INTERLOCK_STALE_READ_MS).toBe(10_000);
    const given = readTuning({ INTERLOCK_STALE_READ_MS: '2000', INTERLOCK_LIVE_EDIT_SECONDS: '0.5' });
    expect([given.INTERLOCK_STALE_READ_MS, given.INTERLOCK_LIVE_EDIT_SECONDS]).toEqual([2000, 0.5]);
  });

  it('refuses a bad value in one line naming the variable, what it must be and the default', () => {
    const err = (env: Record<string, string>) => {
      try {
        readTuning(env);
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(err({ INTERLOCK_STALE_READ_MS: 'soon' })).toBe(
      'interlock: INTERLOCK_STALE_READ_MS="soon" is not valid: a whole number of milliseconds from 0 to 9999999; set it so or unset it (default 10000)',
    );
    expect(err({ INTERLOCK_LINE_UP_SLOT_MS: '50' })).toBe(
      'interlock: INTERLOCK_LINE_UP_SLOT_MS="50" is not valid: at least 100; set it so or unset it (default 2000)',
    );
    expect(err({ INTERLOCK_LIVE_EDIT_SECONDS: '-1' })).toMatch(
      /^interlock: INTERLOCK_LIVE_EDIT_SECONDS="-1" is not valid: /,
    );
    for (const name of Object.keys(TUNING)) expect(err({ [name]: 'x' }).split('\n')).toHaveLength(1);
  });
});

/** The rows of docs/tuning.md's table: variable name and default as written. */
function docRows(): Map<string, string> {
  const doc = readFileSync(join(ROOT, 'docs/tuning.md'), 'utf8');
  return new Map(
    [...doc.matchAll(/^\| `(INTERLOCK_[A-Z_]+)` +\| ([^|]+?) +\|/gm)].map((m) => [
      m[1]!,
      m[2]!.replace(/[`,_]/g, ''),
    ]),
  );
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('docs/tuning.md', () => {
  it("lists the schema's variables and the App's settings, each with its default", () => {
    const rows = docRows();
    const app = Object.keys(ServerEnvSchema.shape).filter((k) => k.startsWith('INTERLOCK_'));
    expect([...rows.keys()].sort()).toEqual([...Object.keys(TUNING), ...app].sort());
    for (const [name, spec] of Object.entries(TUNING))
      expect(rows.get(name), name).toBe(String(spec.default));
  });

  it('every INTERLOCK_ name in src/ is a tuning variable, an App setting, a test hook, or given to nodes', () => {
    const known = new Set([
      ...Object.keys(TUNING),
      ...Object.keys(ServerEnvSchema.shape),
      ...GIVEN_TO_NODES,
      ...TEST_HOOKS,
    ]);
    const stray: string[] = [];
    for (const path of sources(join(ROOT, 'src')))
      for (const m of readFileSync(path, 'utf8').matchAll(/\bINTERLOCK_[A-Z][A-Z_]*[A-Z]\b/g))
        if (!known.has(m[0])) stray.push(`${relative(ROOT, path)}: ${m[0]}`);
    expect(stray).toEqual([]);
  });
});
