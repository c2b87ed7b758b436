// Bundles each entry point with esbuild into one file under dist/, plus dist/yaml.cjs, the careful YAML parser
// the entries load only when there is an error to locate.
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * `require('yaml')` (the only call that names it) is left to the runtime and pointed at dist/yaml.cjs: a module
 * in the bundle is parsed at every start even when it never runs, and this one is a fifth of the bundle.
 */
const yamlBesideBundle = {
  name: 'yaml-beside-bundle',
  setup(build) {
    build.onResolve({ filter: /^yaml$/ }, (args) =>
      args.kind === 'require-call' ? { path: './yaml.cjs', external: true } : undefined,
    );
  },
};

/**
 * `debug` (under @actions/cache's Azure SDK) tries `require('supports-color')` and does without it when that
 * throws: the bundle holds a module that throws, rather than a dependency a runner does not have.
 */
const optionalAbsent = {
  name: 'optional-absent',
  setup(build) {
    build.onResolve({ filter: /^supports-color$/ }, (args) => ({ path: args.path, namespace: 'absent' }));
    build.onLoad({ filter: /.*/, namespace: 'absent' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is not bundled`)});`,
      loader: 'js',
    }));
  },
};

/**
 * `import('@actions/cache')` (the session cache, src/action/session-cache.ts) is left to the runtime and pointed at
 * dist/actions-cache.js: with the Azure SDK it is twice the rest of the Action, and only a step that carries a
 * session loads it.
 */
/** The files beside the bundles that they load at run time. */
const BESIDE = ['./yaml.cjs', './actions-cache.js'];

const cacheBesideBundle = {
  name: 'cache-beside-bundle',
  setup(build) {
    build.onResolve({ filter: /^@actions\/cache$/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: './actions-cache.js', external: true } : undefined,
    );
  },
};

/** Every TypeScript file under `dir`. */
function tsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The names src/ imports from each of Node's built-ins (`import { a, b as c } from 'node:fs'`), sorted. */
function builtinImports() {
  const names = new Map();
  for (const file of tsFiles(join(root, 'src'))) {
    const code = readFileSync(file, 'utf8');
    for (const m of code.matchAll(/\bimport\s+(type\s+)?\{([^}]*)\}\s*from\s*'([^']+)'/g)) {
      if (m[1] || !isBuiltin(m[3])) continue;
      const set = names.get(m[3]) ?? new Set();
      names.set(m[3], set);
      for (const spec of m[2].split(',').map((x) => x.trim()))
        if (spec && !spec.startsWith('type ')) set.add(spec.split(/\s+as\s+/)[0]);
    }
  }
  return new Map([...names].map(([mod, set]) => [mod, [...set].sort()]));
}

/**
 * A built-in imported by an ES module (`import { request } from 'node:http'`) is loaded through Node's ES module
 * facade, which reads every export of the built-in at load: for `node:fs` that loads fs/promises, streams and
 * readline, and on Node 24 `node:http` pulls in `fetch`'s HTTP client, http2, TLS and worker threads (a third
 * of a step's start-up). An import from src/ is bundled instead as one `require` of the built-in, which loads it
 * alone, and reads once only the names src/ imports from it (a name src/ does not import fails the build).
 * A dependency's own import of a built-in is left as it is.
 */
const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(build) {
    const names = builtinImports();
    const src = join(root, 'src');
    build.onResolve({ filter: /^(node:)?[a-z_]+(\/[a-z_]+)?$/ }, (args) =>
      args.kind === 'import-statement' && args.importer.startsWith(src) && names.has(args.path)
        ? { path: args.path, namespace: 'builtin' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({
      contents: `const m = require(${JSON.stringify(args.path)});\nexport const { ${names.get(args.path).join(', ')} } = m;\n`,
      loader: 'js',
    }));
  },
};

const plugins = [builtinsByRequire, yamlBesideBundle, cacheBesideBundle, optionalAbsent];

/**
 * The REST methods src/ calls, as `scope.method` (`octokit.rest.issues.get` is `issues.get`). Any other use of
 * `.rest` (a computed name, `.rest` passed on, `rest` taken out of a client) fails the build: the Action's bundle
 * holds only the methods found here, so a method reached some other way would be missing at run time.
 */
export function restMethodsUsed(srcDir = join(root, 'src')) {
  const used = new Set();
  for (const file of tsFiles(srcDir)) {
    // Comments out, newlines kept (so a line number is right).
    const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (c) =>
      c.replace(/[^\n]/g, ''),
    );
    for (const m of code.matchAll(
      /(?<!\.)\.rest\b(\s*\.\s*(\w+)\s*\.\s*(\w+))?|\{[^{}]*\brest\b[^{}]*\}\s*=\s*\w*(octokit|client|github)/gi,
    )) {
      if (m[1]) {
        used.add(`${m[2]}.${m[3]}`);
        continue;
      }
      const line = code.slice(0, m.index).split('\n').length;
      throw new Error(`${file}:${line}: \`.rest\` not followed by \`.<scope>.<method>\`; name the method`);
    }
  }
  return used;
}

/**
 * Octokit's REST plugin describes all of GitHub's ~1,100 endpoints in one table (80 kB, a seventh of the Action)
 * that every start parses and builds; the Action calls about forty. In the Action's bundle the table holds only
 * the methods src/ calls (restMethodsUsed); a name the table lacks fails the build. The CLI and the App keep it
 * whole.
 */
const restMethodsOnlyUsed = {
  name: 'rest-methods-only-used',
  setup(build) {
    build.onLoad(
      { filter: /plugin-rest-endpoint-methods[\\/]dist-src[\\/]generated[\\/]endpoints\.js$/ },
      async (args) => {
        const all = (await import(pathToFileURL(args.path).href)).default;
        const kept = {};
        for (const name of [...restMethodsUsed()].sort()) {
          const [scope, method] = name.split('.');
          if (!all[scope]?.[method])
            throw new Error(`src/ calls octokit.rest.${name}, which Octokit does not have`);
          kept[scope] = { ...kept[scope], [method]: all[scope][method] };
        }
        return { contents: `export default ${JSON.stringify(kept)};`, loader: 'js' };
      },
    );
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  // INTERLOCK_BUILD_NAMES=1 keeps names and lines (a CPU profile of a step then says which function took the time,
  // and each line's module is named in the comment above it).
  minifyWhitespace: process.env.INTERLOCK_BUILD_NAMES !== '1',
  minifySyntax: true,
  minifyIdentifiers: process.env.INTERLOCK_BUILD_NAMES !== '1',
  // Pure ASCII: a source with one character beyond Latin-1 is decoded and compiled as a two-byte string, which
  // slows every start. esbuild writes such characters as escapes, which mean the same everywhere.
  charset: 'ascii',
  legalComments: 'none',
  logLevel: 'warning',
};

/**
 * Bundles one ESM entry into `outfile`; the bench builds its bare baseline with this too, so the two differ
 * only in what they bundle. `action`: the Action's entries, whose Octokit holds only the REST methods src/
 * calls (restMethodsOnlyUsed). Returns esbuild's metafile (which input contributed how many bytes).
 *
 * One file, not split (esbuild's `splitting`): a module reached only through `import()` (a mode, the effects,
 * the egress and key proxies) is bundled behind a wrapper that runs it on its first import, so a step that does
 * not enter it does not run it, and split into files of their own the Action started slower (each file Node
 * loads costs more than parsing the code it would leave out; docs/BENCHMARKS.md, cold start).
 */
export async function bundle(entry, outfile, { action = false } = {}) {
  const result = await esbuild.build({
    ...common,
    entryPoints: [join(root, entry)],
    outfile,
    format: 'esm',
    metafile: true,
    plugins: action ? [restMethodsOnlyUsed, ...plugins] : plugins,
    // The CommonJS packages in the bundle call `require` for Node's built-ins; an ES module has none of its own.
    banner: {
      js: "import{createRequire as __interlockRequire}from'node:module';const require=__interlockRequire(import.meta.url);",
    },
  });
  return result.metafile;
}

const entries = [
  { src: 'src/action/index.ts', out: 'index.js', action: true },
  { src: 'src/action/post.ts', out: 'post.js', action: true },
  { src: 'src/cli/index.ts', out: 'cli.js' },
  { src: 'src/app/start.ts', out: 'app.js' },
  // Loaded by dist/index.js and dist/post.js only when a step carries a session (cacheBesideBundle).
  { src: 'node_modules/@actions/cache/lib/cache.js', out: 'actions-cache.js' },
];

/**
 * dist/licenses.txt: the name, version, license and license text of every package the bundles contain, which
 * their licenses ask to travel with copies of the code.
 */
function licenses(packageDirs) {
  const parts = [...packageDirs].sort().map((dir) => {
    const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    const file = readdirSync(join(root, dir)).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
    const text = file
      ? readFileSync(join(root, dir, file), 'utf8').trim()
      : `(no license file; package.json says ${pkg.license})`;
    return `${pkg.name} ${pkg.version} (${pkg.license ?? 'no license field'})\n\n${text}\n`;
  });
  return `Packages bundled in dist/, and their licenses.\n\n${parts.join(`\n${'-'.repeat(78)}\n\n`)}`;
}

async function build() {
  const dist = join(root, 'dist');
  rmSync(dist, { recursive: true, force: true });
  const packageDirs = new Set(['node_modules/yaml']);
  for (const { src, out, action } of entries) {
    const file = join(dist, out);
    const meta = await bundle(src, file, { action: !!action });
    for (const input of Object.keys(meta.inputs)) {
      const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
      if (m && existsSync(join(root, m[1], 'package.json'))) packageDirs.add(m[1]);
    }
    const text = readFileSync(file, 'utf8');
    if (process.env.INTERLOCK_BUILD_NAMES !== '1' && /[^\x00-\x7f]/.test(text))
      throw new Error(`${src}: dist/${out} is not pure ASCII`);
    // A bundle must not depend on the project's node_modules: a runner has only dist/.
    const external = Object.values(meta.outputs)
      .flatMap((o) => o.imports)
      .filter((i) => i.external && !isBuiltin(i.path) && !BESIDE.includes(i.path));
    if (external.length)
      throw new Error(`${src}: left outside the bundle: ${external.map((i) => i.path).join(', ')}`);
  }
  await esbuild.build({
    ...common,
    entryPoints: [join(root, 'node_modules/yaml/dist/index.js')],
    outfile: join(dist, 'yaml.cjs'),
    format: 'cjs',
  });
  writeFileSync(join(dist, 'package.json'), '{\n  "type": "module"\n}\n');
  writeFileSync(join(dist, 'licenses.txt'), licenses(packageDirs));
  const size = (f) => (readFileSync(join(dist, f)).length / 1024).toFixed(0);
  const files = [...entries.map((e) => e.out), 'yaml.cjs'];
  console.log(`built ${files.map((f) => `dist/${f} (${size(f)} kB)`).join(', ')}`);
}

// Run as a script (`node scripts/build.mjs`, through any symlink), not imported by the bench.
if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url)))
  await build();
