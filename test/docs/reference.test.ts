// docs/graph-reference.md and docs/journal-reference.md are what the generator writes from the schemas, so
// they cannot drift; and the generator refuses a field the reference could not explain.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { actionReferenceOf, splitDescription } from '../../scripts/docs/action-reference.js';
import { renderPage } from '../../scripts/docs/pages.js';
import { anchorOf, fieldRows, type JsonSchema } from '../../scripts/docs/schema-table.js';
import { parseGraph } from '../../src/graph/load/load.js';
import { DEFAULT_TIMEOUT_MINUTES } from '../../src/graph/model.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The table row of a field in a section of a generated page. */
function row(page: string, heading: string, field: string): string[] {
  const start = page.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const section = page.slice(start + 1).split(/\n#{2,4} /)[0]!;
  const line = section
    .split('\n')
    .find((l) => new RegExp(`^\\| \`${field.replace(/[[\]]/g, '\\$&')}\` +\\|`).test(l));
  expect(line, `${heading} ${field}`).toBeDefined();
  return line!
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((c) => c.trim());
}

/** The column of a row, by the table's header. */
function column(page: string, heading: string, field: string, name: string): string {
  const start = page.indexOf(`\n${heading}\n`);
  const header = page
    .slice(start + 1)
    .split('\n')
    .find((l) => /^\| field +\|/.test(l))!
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());
  return row(page, heading, field)[header.indexOf(name)]!;
}

describe('the generated references', () => {
  for (const path of ['docs/graph-reference.md', 'docs/journal-reference.md', 'docs/action-reference.md']) {
    it(`${path} is what the generator writes from its source (run npm run docs)`, () => {
      expect(read(path)).toBe(renderPage(path));
    });
  }

  it('a field without a description stops the generator, naming the field and the fix', () => {
    const schema = z.toJSONSchema(
      z.strictObject({ named: z.string().meta({ description: 'has one' }), bare: z.number() }),
    ) as JsonSchema;
    expect(() => fieldRows(schema, { linkOf: () => undefined, source: 'x.ts' })).toThrow(
      'x.ts: field "bare" has no description: add .meta({ description',
    );
  });

  it('every event type, event field and checkpoint key is in the journal reference', () => {
    const page = read('docs/journal-reference.md');
    for (const t of [
      'RunStarted',
      'NodeDispatched',
      'NodeRecorded',
      'NodeFailed',
      'NodeSkipped',
      'NodeInterrupted',
      'RerunApproved',
      'NodeEscalated',
      'RunFailed',
      'RunCompleted',
      'GraphChangeAllowed',
    ])
      expect(page).toContain(`### \`${t}\``);
    expect(row(page, '### `RerunApproved`', 'required')[1]).toBe('integer');
    expect(row(page, '### `NodeDispatched`', 'approach')).toBeDefined();
    expect(page).toMatch(/^\| `rolled_back_to` +\|/m);
    expect(page).toMatch(/^\| `last_activity_at` +\|/m);
  });

  it('the defaults the graph reference gives are the ones the loader applies', () => {
    const page = read('docs/graph-reference.md');
    const g = parseGraph({
      path: 'g.yml',
      text: 'interlock: 1\nname: g\nnodes:\n  - id: a\n    run: "true"\n',
    });
    const node = g.nodes[0]!;
    expect(node.replay).toBe('never');
    expect(node.approaches[0]!.timeout_minutes).toBe(DEFAULT_TIMEOUT_MINUTES);
    expect(column(page, '### `defaults`', 'replay', 'default')).toBe('`never`');
    expect(column(page, '### `defaults`', 'timeout_minutes', 'default')).toBe(
      `\`${DEFAULT_TIMEOUT_MINUTES}\``,
    );
    expect(column(page, '### Node (`nodes[]`)', 'replay', 'default')).toBe('`defaults.replay`, else `never`');
    expect(column(page, '### Node (`nodes[]`)', 'timeout_minutes', 'default')).toBe(
      `\`defaults.timeout_minutes\`, else \`${DEFAULT_TIMEOUT_MINUTES}\``,
    );
    expect(column(page, '### `approvals`', 'permission', 'default')).toBe('`write`');
  });

  it('the action reference names every input and output of action.yml, with its first sentence and the rest', () => {
    const actionYml = read('action.yml');
    const meta = parse(actionYml) as {
      inputs: Record<string, { description: string }>;
      outputs: Record<string, { description: string }>;
    };
    const page = actionReferenceOf(actionYml);
    const flat = page.replace(/\s+/g, ' ');
    for (const [kind, entries] of [
      ['input', meta.inputs],
      ['output', meta.outputs],
    ] as const)
      for (const [name, e] of Object.entries(entries)) {
        expect(page).toContain(`| [\`${name}\`](#${name}-${kind}) |`);
        expect(page).toContain(`### \`${name}\` (${kind})`);
        expect(flat).toContain(splitDescription(e.description).summary);
        expect(flat).toContain(e.description.replace(/\s+/g, ' ').trim());
      }
  });

  it('every check kind has its own section, and every link in the pages reaches a heading or a file', () => {
    for (const path of ['docs/graph-reference.md', 'docs/journal-reference.md', 'docs/action-reference.md']) {
      const page = read(path);
      const anchors = new Set([...page.matchAll(/^#{1,4} (.+)$/gm)].map(([, h]) => anchorOf(h!)));
      for (const [, target] of page.matchAll(/\]\(#([^)]+)\)/g))
        expect(anchors, `${path}: #${target}`).toContain(target);
      for (const [, file] of page.matchAll(/\]\((\.\.\/[^)#]+)\)/g))
        expect(existsSync(new URL(`../../docs/${file}`, import.meta.url)), `${path}: ${file}`).toBe(true);
    }
    const graph = read('docs/graph-reference.md');
    for (const kind of [
      'file',
      'command',
      'output',
      'git',
      'pull_request',
      'check',
      'issue',
      'branch',
      'tag',
      'release',
    ])
      expect(graph).toContain(`#### \`${kind}\``);
  });
});
