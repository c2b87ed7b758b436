// Bundles each entry point with ncc into a single file under dist/.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  copyFileSync(join(tmp, 'index.js'), join(dist, out));
}
writeFileSync(join(dist, 'package.json'), '{\n  "type": "module"\n}\n');
const size = (f) => (readFileSync(join(dist, f)).length / 1024).toFixed(0);
console.log(`built ${entries.map((e) => `dist/${e.out} (${size(e.out)} kB)`).join(', ')}`);
