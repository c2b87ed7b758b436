import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIAGRAM_SVG, exampleDiagram, ROOT, sourceComment } from '../../scripts/diagram-source.js';

// The image itself needs a Chromium (npm run diagram); this only checks the committed one is current.
const REGENERATE = `run \`npm run diagram\` (needs \`apt-get install chromium\`) and commit ${DIAGRAM_SVG}`;
const file = join(ROOT, DIAGRAM_SVG);
const svg = existsSync(file) ? readFileSync(file, 'utf8') : '';

/** Tags open and close in order: enough to catch a cut or HTML-serialized SVG without an XML parser. */
function unbalancedTag(text: string): string | undefined {
  const stack: string[] = [];
  const body = text.replace(/<!--[\s\S]*?-->/g, '');
  for (const [tag, close, name, selfClose] of body.matchAll(/<(\/?)([A-Za-z][\w:.-]*)\b[^<>]*?(\/?)>/g)) {
    if (selfClose) continue;
    if (!close) stack.push(name!);
    else if (stack.pop() !== name) return tag;
  }
  return stack.length ? `<${stack.pop()}> is never closed` : undefined;
}

describe(`${DIAGRAM_SVG} (npm run diagram)`, () => {
  it('exists and is a standalone SVG that GitHub can show in <img>', () => {
    expect(existsSync(file), `${DIAGRAM_SVG} is missing: ${REGENERATE}`).toBe(true);
    expect(svg).toMatch(/^<!--[\s\S]*?-->\n<svg\b/);
    const open = /^<!--[\s\S]*?-->\n(<svg\b[^>]*>)/.exec(svg)![1]!;
    expect(open).toContain('xmlns="http://www.w3.org/2000/svg"');
    expect(open).toMatch(/\sviewBox="[\d.]+ [\d.]+ [\d.]+ [\d.]+"/);
    expect(open).toMatch(/\swidth="\d+" height="\d+"/);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(unbalancedTag(svg)).toBeUndefined();
    expect(svg).not.toMatch(/<script\b|<foreignObject\b|@import|(?:href|src)="(?!#)/i);
  });

  it('was rendered from the current Mermaid text of statusMermaid for the example graph', () => {
    const { hash } = exampleDiagram();
    expect(
      svg.startsWith(`${sourceComment(hash)}\n`),
      `${DIAGRAM_SVG} was rendered from other Mermaid text than statusMermaid gives now (the graph or the renderer changed): ${REGENERATE}`,
    ).toBe(true);
  });

  it('labels every node of the graph', () => {
    const { graph } = exampleDiagram();
    expect(graph.nodes.length).toBeGreaterThan(0);
    for (const n of graph.nodes)
      expect(
        svg.includes(`>${n.id}</tspan>`),
        `node "${n.id}" has no label in ${DIAGRAM_SVG}: ${REGENERATE}`,
      ).toBe(true);
  });
});
