// Bundles each entry point with ncc into a single file under dist/.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const entries = [
  { src: 'src/action/index.ts', out: 'index.js' },
  { src: 'src/action/post.ts', out: 'post.js' },
  { src: 'src/cli/index.ts', out: 'cli.js' },
];
const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
mkdirSync(dist, { recursive: true });
for (const { src, out } of entries) {
  const tmp = join(root, 'node_modules', '.cache', 'interlock-build', out);
  rmSync(tmp, { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [
      join(root, 'node_modules/@vercel/ncc/dist/ncc/cli.js'),
      'build',
      src,
      '-o',
      tmp,
      '--minify',
      '--transpile-only',
      '--no-source-map-register',
      '-q',
      '--target',
      'es2022',
    ],
    { cwd: root, stdio: 'inherit' },
  );
  // ncc rewrites path expressions it takes for asset references; a bundle must not depend on stray files.
  // Minified, `__nccwpck_require__.ab + "..."` reads `n.ab+"..."`.
  if (/\.ab\s*\+\s*["'`]/.test(readFileSync(join(tmp, 'index.js'), 'utf8'))) {
    throw new Error(
      `${src}: ncc relocated a path expression into an asset reference; build that path another way`,
    );
  }
  // Pure ASCII: a source with one character beyond Latin-1 is decoded and compiled as a two-byte string, which
  // slows every start. Escapes mean the same in strings, templates, regular expressions and identifiers.
  const raw = readFileSync(join(tmp, 'index.js'), 'utf8');
  if (/\\[^\x00-\x7f]/.test(raw))
    throw new Error(`${src}: an escaped non-ASCII character; escape it in the source`);
  const code = raw.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  writeFileSync(join(dist, out), code);
}
writeFileSync(join(dist, 'package.json'), '{\n  "type": "module"\n}\n');
const size = (f) => (readFileSync(join(dist, f)).length / 1024).toFixed(0);
console.log(`built ${entries.map((e) => `dist/${e.out} (${size(e.out)} kB)`).join(', ')}`);
