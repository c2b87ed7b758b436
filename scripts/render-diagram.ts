// Writes docs/images/example-graph.svg (npm run diagram): the example graph as `interlock status --mermaid`
// draws it, rendered by the mermaid package in a headless Chromium (Debian: apt-get install chromium).
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIAGRAM_SVG, exampleDiagram, ROOT, sourceComment } from './diagram-source.js';

const MERMAID_JS = join(ROOT, 'node_modules/mermaid/dist/mermaid.min.js');
const BROWSERS = ['chromium', 'chromium-browser', 'google-chrome'];

function findBrowser(): string {
  const explicit = process.env.CHROMIUM;
  if (explicit) return explicit;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of BROWSERS) {
      const path = join(dir, name);
      try {
        accessSync(path, constants.X_OK);
        return path;
      } catch {
        // not here
      }
    }
  }
  throw new Error(
    'a headless Chromium is needed and none is on PATH: run `apt-get install chromium` (Debian/Ubuntu), ' +
      'or set CHROMIUM to the browser binary.',
  );
}

/**
 * The page renders the source with mermaid, then writes the SVG, serialized as XML, into <pre id="out">:
 * --dump-dom serializes as HTML (`&nbsp;`, `<br>` and the like), which is not always well-formed XML.
 */
function page(source: string): string {
  const config = {
    startOnLoad: false,
    theme: 'default',
    // Labels as SVG <text>: GitHub shows an SVG in <img>, where <foreignObject> HTML may not render.
    htmlLabels: false,
    flowchart: { htmlLabels: false },
    // Measured here with Liberation Sans (Arial's metrics), so boxes fit wherever Arial is the font.
    fontFamily: 'arial, sans-serif',
    themeVariables: { fontFamily: 'arial, sans-serif' },
    deterministicIds: true,
    deterministicIDSeed: 'interlock',
    securityLevel: 'strict',
  };
  const json = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');
  return `<!doctype html>
<html><head><meta charset="utf-8"><script src="${pathToFileURL(MERMAID_JS).href}"></script></head>
<body>
<div id="diagram"></div>
<pre id="out"></pre>
<script>
(async () => {
  const out = document.getElementById('out');
  try {
    mermaid.initialize(${json(config)});
    const { svg } = await mermaid.render('interlock-example', ${json(source)});
    const holder = document.getElementById('diagram');
    holder.innerHTML = svg;
    out.textContent = new XMLSerializer().serializeToString(holder.querySelector('svg'));
    out.dataset.state = 'done';
  } catch (e) {
    out.textContent = String(e && e.stack || e);
    out.dataset.state = 'error';
  }
})();
</script>
</body></html>
`;
}

function unescapeHtml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&nbsp;/g, '\u00a0')
    .replace(/&amp;/g, '&');
}

function render(browser: string, source: string): string {
  const work = mkdtempSync(join(tmpdir(), 'interlock-diagram-'));
  try {
    const html = join(work, 'diagram.html');
    writeFileSync(html, page(source));
    const r = spawnSync(
      browser,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--allow-file-access-from-files',
        `--user-data-dir=${join(work, 'profile')}`,
        '--virtual-time-budget=15000',
        '--dump-dom',
        pathToFileURL(html).href,
      ],
      { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
    );
    if (r.error) throw new Error(`${browser}: ${r.error.message}`);
    const out = /<pre id="out" data-state="(done|error)">([\s\S]*?)<\/pre>/.exec(r.stdout);
    if (!out)
      throw new Error(
        `${browser} exited with ${r.status ?? r.signal} and no rendered diagram:\n${r.stderr.slice(-2000)}`,
      );
    const text = unescapeHtml(out[2]!);
    if (out[1] === 'error') throw new Error(`mermaid could not render the diagram:\n${text}`);
    return text;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A standalone SVG: its own size (not 100% of whatever holds it), no scripts or outside references. */
function standalone(svg: string, hash: string): string {
  const open = /^<svg\b[^>]*>/.exec(svg)?.[0];
  if (!open) throw new Error('the rendered diagram does not start with <svg');
  const viewBox = /\sviewBox="([^"]+)"/.exec(open)?.[1] ?? '';
  const box = viewBox
    .trim()
    .split(/[\s,]+/)
    .map(Number);
  if (box.length !== 4 || box.some((n) => !Number.isFinite(n)))
    throw new Error(`the rendered diagram has no usable viewBox: ${open}`);
  const [, , w, h] = box as [number, number, number, number];
  let head = open
    .replace(/\s(width|height|style)="[^"]*"/g, '')
    .replace(/>$/, ` width="${Math.ceil(w)}" height="${Math.ceil(h)}">`);
  if (!/\sxmlns="http:\/\/www\.w3\.org\/2000\/svg"/.test(head))
    head = head.replace(/^<svg/, '<svg xmlns="http://www.w3.org/2000/svg"');
  const body = svg.slice(open.length);
  for (const [what, re] of [
    ['a <script>', /<script\b/i],
    ['an outside reference', /(?:href|src)="(?!#)[^"]+"|url\((?!['"]?#)|@import/i],
    ['a <foreignObject> (HTML label)', /<foreignObject\b/i],
  ] as const)
    if (re.test(body)) throw new Error(`the rendered diagram contains ${what}; it would not show on GitHub`);
  return `${sourceComment(hash)}\n${head}${body}\n`;
}

function main(): void {
  const browser = findBrowser();
  const { mermaid, hash } = exampleDiagram();
  const svg = standalone(render(browser, mermaid), hash);
  const target = join(ROOT, DIAGRAM_SVG);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, svg);
  console.log(`wrote ${DIAGRAM_SVG} (${svg.length} bytes) from Mermaid source ${hash}`);
}

try {
  main();
} catch (e) {
  console.error(`npm run diagram: ${e instanceof Error ? e.message : e}`);
  process.exitCode = 1;
}
