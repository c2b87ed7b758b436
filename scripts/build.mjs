// Bundles each entry point with esbuild into one file under dist/, plus dist/yaml.cjs, the careful YAML parser
// the entries load only when there is an error to locate.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  minify: true,
  // Pure ASCII: a source with one character beyond Latin-1 is decoded and compiled as a two-byte string, which
  // slows every start. esbuild writes such characters as escapes, which mean the same everywhere.
  charset: 'ascii',
  legalComments: 'none',
  logLevel: 'warning',
};

/**
 * Bundles one ESM entry into `outfile`; the bench builds its bare baseline with this too, so the two differ
 * only in what they bundle. Returns esbuild's metafile (which input contributed how many bytes).
 */
export async function bundle(entry, outfile) {
  const result = await esbuild.build({
    ...common,
    entryPoints: [join(root, entry)],
    outfile,
    format: 'esm',
    metafile: true,
    plugins: [yamlBesideBundle],
    // The CommonJS packages in the bundle call `require` for Node's built-ins; an ES module has none of its own.
    banner: {
      js: "import{createRequire as __interlockRequire}from'node:module';const require=__interlockRequire(import.meta.url);",
    },
  });
  return result.metafile;
}

const entries = [
  { src: 'src/action/index.ts', out: 'index.js' },
  { src: 'src/action/post.ts', out: 'post.js' },
  { src: 'src/cli/index.ts', out: 'cli.js' },
];

async function build() {
  const dist = join(root, 'dist');
  rmSync(dist, { recursive: true, force: true });
  for (const { src, out } of entries) {
    const file = join(dist, out);
    const meta = await bundle(src, file);
    const text = readFileSync(file, 'utf8');
    if (/[^\x00-\x7f]/.test(text)) throw new Error(`${src}: dist/${out} is not pure ASCII`);
    // A bundle must not depend on the project's node_modules: a runner has only dist/.
    const external = Object.values(meta.outputs)
      .flatMap((o) => o.imports)
      .filter((i) => i.external && !isBuiltin(i.path) && i.path !== './yaml.cjs');
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
  const size = (f) => (readFileSync(join(dist, f)).length / 1024).toFixed(0);
  const files = [...entries.map((e) => e.out), 'yaml.cjs'];
  console.log(`built ${files.map((f) => `dist/${f} (${size(f)} kB)`).join(', ')}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await build();
