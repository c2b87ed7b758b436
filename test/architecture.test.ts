// The allowed import directions of src/, as data (docs/ARCHITECTURE.md draws them): every `import ... from`,
// `export ... from`, `import '...'` and `import('...')` in src/**/*.ts is checked, and a forbidden one fails
// with its file, line and import.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');

/** The pure core, in order: each may import only those before it (and itself). No I/O, no clock passed in implicitly. */
const CORE = ['expressions', 'graph', 'journal', 'protocol'] as const;

/**
 * The shell's floors, bottom first. A floor imports the core and the floors below it, never one above it or a
 * neighbour on its own floor (so the three faces never import each other). `os` is the bottom: it imports
 * nothing else of src/, not even the core.
 */
const FLOORS: ReadonlyArray<readonly string[]> = [
  ['os'],
  ['github', 'render', 'config'],
  ['store', 'evidence'],
  ['runner'],
  ['approvals'],
  ['action', 'app', 'cli'],
];

/** Layers that decide or only turn data into text: they may not reach the filesystem, processes or the network. */
const NO_IO = new Set<string>([...CORE, 'render', 'config']);
const IO_MODULES =
  /^(node:)?(fs|fs\/promises|child_process|net|http|https|http2|dgram|tls|dns|os|worker_threads|cluster)$|^(@octokit\/|@actions\/(github|core|http-client)$|probot$|undici$)/;

/**
 * Imports that break the rules at the branch point of issue 14 and are being removed by another engineer.
 * Delete each entry once its import is gone (the last test fails to say so).
 */
const EXCEPTIONS: ReadonlyArray<{ from: string; to: string; owner: string }> = [];

interface Import {
  file: string;
  line: number;
  spec: string;
  /** The imported file relative to the repository (src/...), for imports inside src/. */
  target?: string;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Comments blanked out (newlines kept, so offsets still give line numbers). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (c) => c.replace(/[^\n]/g, ' '));
}

const IMPORT =
  /\b(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(path: string, text: string): Import[] {
  const code = withoutComments(text);
  const file = relative(ROOT, path);
  return [...code.matchAll(IMPORT)].map((m) => {
    const spec = (m[1] ?? m[2] ?? m[3])!;
    const line = code.slice(0, m.index).split('\n').length;
    const target = spec.startsWith('.')
      ? relative(ROOT, resolve(dirname(path), spec)).replace(/\.js$/, '.ts')
      : undefined;
    return { file, line, spec, ...(target ? { target } : {}) };
  });
}

/** The layer of a file under src/: its first directory. */
function layerOf(file: string): string {
  const parts = relative('src', file).split('/');
  return parts.length > 1 ? parts[0]! : `(top level: ${parts[0]})`;
}

function floorOf(layer: string): number {
  return FLOORS.findIndex((f) => f.includes(layer));
}

/** Why an import breaks a rule, or undefined when it is allowed. */
function violation(imp: Import): string | undefined {
  const from = layerOf(imp.file);
  const core = (CORE as readonly string[]).indexOf(from);
  if (core < 0 && floorOf(from) < 0)
    return `${from} is not a layer: add it to CORE or FLOORS in test/architecture.test.ts (and to docs/ARCHITECTURE.md)`;
  if (!imp.target) {
    if (NO_IO.has(from) && IO_MODULES.test(imp.spec))
      return `${from} decides or renders and does no I/O: do the I/O in a floor of the shell (os, store, evidence, runner, github) and pass the data in`;
    return undefined;
  }
  if (!imp.target.startsWith('src/')) return `imports ${imp.target}, outside src/`;
  const to = layerOf(imp.target);
  if (to === from) return undefined;
  const toCore = (CORE as readonly string[]).indexOf(to);
  if (core >= 0) {
    if (toCore >= 0 && toCore < core) return undefined;
    return toCore >= 0
      ? `the core is ordered ${CORE.join(' < ')}: ${from} may not import ${to}`
      : `the pure core (${from}) imports no layer of the shell (${to})`;
  }
  if (floorOf(from) === 0) return `os is the bottom floor: it imports nothing of src/ (here ${to})`;
  if (toCore >= 0) return undefined;
  if (floorOf(to) < 0) return `${to} is not a layer: add it to CORE or FLOORS in test/architecture.test.ts`;
  if (floorOf(to) < floorOf(from)) return undefined;
  return floorOf(to) === floorOf(from)
    ? `${from} and ${to} share a floor and never import each other`
    : `${from} is below ${to}: a lower floor never imports a higher one`;
}

const isException = (imp: Import) => EXCEPTIONS.some((x) => x.from === imp.file && x.to === imp.target);
const allImports = () => tsFiles(SRC).flatMap((path) => importsOf(path, readFileSync(path, 'utf8')));
const described = (imp: Import, why: string) => `${imp.file}:${imp.line}: import '${imp.spec}': ${why}`;

describe('import directions', () => {
  it('src/ has no import that breaks a rule (beyond the listed exceptions)', () => {
    const broken = allImports().flatMap((imp) => {
      const why = violation(imp);
      return why && !isException(imp) ? [described(imp, why)] : [];
    });
    expect(broken, broken.join('\n')).toEqual([]);
  });

  it('reads every form of import, with its line', () => {
    const text = [
      "import { a } from './a.js';",
      'import {',
      '  b,',
      "} from '../store/b.js';",
      "export { c } from './c.js';",
      "// import { d } from './d.js';",
      "import type { E } from 'node:fs';",
      "import './side.js';",
      "const f = () => import('node:child_process');",
    ].join('\n');
    const found = importsOf(join(SRC, 'graph', 'x.ts'), text).map(
      (i) => `${i.line} ${i.spec} ${i.target ?? ''}`,
    );
    expect(found).toEqual([
      '1 ./a.js src/graph/a.ts',
      '2 ../store/b.js src/store/b.ts',
      '5 ./c.js src/graph/c.ts',
      '7 node:fs ',
      '8 ./side.js src/graph/side.ts',
      '9 node:child_process ',
    ]);
  });

  it.each([
    ['src/graph/x.ts', '../runner/step.js', 'the pure core (graph) imports no layer of the shell (runner)'],
    [
      'src/graph/x.ts',
      '../protocol/decide.js',
      'the core is ordered expressions < graph < journal < protocol',
    ],
    ['src/journal/x.ts', 'node:fs', 'journal decides or renders and does no I/O'],
    ['src/protocol/x.ts', 'node:child_process', 'protocol decides or renders and does no I/O'],
    ['src/render/x.ts', '@octokit/rest', 'render decides or renders and does no I/O'],
    ['src/os/x.ts', '../journal/fold.js', 'os is the bottom floor'],
    ['src/store/x.ts', '../runner/step.js', 'a lower floor never imports a higher one'],
    ['src/evidence/x.ts', '../store/file.js', 'share a floor'],
    ['src/app/x.ts', '../action/publish.js', 'share a floor'],
    ['src/cli/x.ts', '../app/handler.js', 'share a floor'],
    ['src/approvals/x.ts', '../app/probot.js', 'a lower floor never imports a higher one'],
    ['src/newlayer/x.ts', '../graph/load.js', 'newlayer is not a layer'],
  ])('refuses %s importing %s', (file, spec, why) => {
    const [imp] = importsOf(join(ROOT, file), `import { x } from '${spec}';`);
    expect(violation(imp!)).toContain(why);
  });

  it.each([
    ['src/protocol/x.ts', '../journal/fold.js'],
    ['src/graph/x.ts', 'node:crypto'],
    ['src/store/x.ts', '../os/processes.js'],
    ['src/runner/x.ts', '../store/file.js'],
    ['src/action/x.ts', '../approvals/handler.js'],
    ['src/app/x.ts', '../approvals/handler.js'],
    ['src/render/x.ts', '../journal/fold.js'],
  ])('allows %s importing %s', (file, spec) => {
    const [imp] = importsOf(join(ROOT, file), `import { x } from '${spec}';`);
    expect(violation(imp!)).toBeUndefined();
  });

  it('lists only exceptions that are still in the code (delete the ones whose import is gone)', () => {
    const imports = allImports();
    const stale = EXCEPTIONS.filter((x) => !imports.some((i) => i.file === x.from && i.target === x.to));
    expect(stale.map((x) => `${x.from} -> ${x.to} (${x.owner})`)).toEqual([]);
  });
});

/**
 * The faces read the environment; below them a value is passed down (issue 47: one home reads each setting). The
 * few files below the faces that read the process's own environment, and why each must.
 */
const FACES = new Set(['action', 'app', 'cli']);
const ENV_READERS: ReadonlyArray<{ file: string; why: string }> = [
  {
    file: 'src/os/node-user/node-share.ts',
    why: "the sudo child of this process is given this process's environment with a safe PATH",
  },
  {
    file: 'src/os/crash-failpoint.ts',
    why: 'the crash tests switch a failpoint on at any depth of any face (INTERLOCK_FAILPOINTS), never a setting',
  },
  {
    file: 'src/evidence/local.ts',
    why: 'git, started by this process with its environment, finds a repository through GIT_DIR: the same check',
  },
];
const ENV_READ = /\bprocess\s*(?:\.\s*env\b|\[\s*['"]env['"]\s*\])/g;

/** Where a file reads the process's environment: `file:line`, outside comments. */
function envReadsOf(file: string, text: string): string[] {
  const code = withoutComments(text);
  return [...code.matchAll(ENV_READ)].map((m) => `${file}:${code.slice(0, m.index).split('\n').length}`);
}

const belowFaces = () =>
  tsFiles(SRC)
    .map((path) => ({ path, file: relative(ROOT, path) }))
    .filter(({ file }) => !FACES.has(layerOf(file)));

describe('the environment is read by the faces', () => {
  it('no file below the faces reads process.env (beyond the listed readers)', () => {
    const reads = belowFaces()
      .filter(({ file }) => !ENV_READERS.some((r) => r.file === file))
      .flatMap(({ path, file }) => envReadsOf(file, readFileSync(path, 'utf8')));
    expect(
      reads,
      `${reads.join('\n')}\nthe face reads the environment (the Action: ActionContext.tuning; the App: at its start; the CLI: io.env) and passes the value down`,
    ).toEqual([]);
  });

  it('finds a read in code, not in a comment, and an `env` parameter defaulted to it', () => {
    const text = [
      '// process.env.X in a comment',
      'const a = process.env.X;',
      "function f(env = process['env']) {}",
    ].join('\n');
    expect(envReadsOf('src/runner/x.ts', text)).toEqual(['src/runner/x.ts:2', 'src/runner/x.ts:3']);
  });

  it('lists only readers that still read it (delete the ones that no longer do)', () => {
    const stale = ENV_READERS.filter(
      (r) => envReadsOf(r.file, readFileSync(join(ROOT, r.file), 'utf8')).length === 0,
    );
    expect(stale.map((r) => r.file)).toEqual([]);
  });
});
