// The README a newcomer scans: one screen's worth of decisions (what it is, whether it is for them, how to start
// on their own repository), its workflow exactly the example's, every link reaching a file, and no line, list
// item or table cell that runs on.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { anchorOf } from '../../scripts/docs/schema-table.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const readme = read('README.md');
const lines = readme.split('\n');
const EXAMPLE = 'examples/workflows/interlock.yml';

/** The README's lines outside code blocks, with their kind. */
function prose(markdown: string): Array<{ line: string; kind: 'table' | 'text' }> {
  let fenced = false;
  return markdown.split('\n').flatMap((line) => {
    if (line.startsWith('```')) {
      fenced = !fenced;
      return [];
    }
    if (fenced || line.startsWith('<!--')) return [];
    return [{ line, kind: line.startsWith('|') ? ('table' as const) : ('text' as const) }];
  });
}

/** The table rows outside code blocks, each as its cells. */
function tableRows(markdown: string): string[][] {
  return prose(markdown)
    .filter((l) => l.kind === 'table')
    .map(({ line }) =>
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((c) => c.trim()),
    );
}

/** Each list item outside code blocks, its continuation lines joined. */
function listItems(markdown: string): string[] {
  const items: string[] = [];
  let current: string | undefined;
  for (const { line, kind } of prose(markdown)) {
    if (kind === 'text' && /^\s*(?:[-*]|\d+\.) /.test(line)) {
      if (current !== undefined) items.push(current);
      current = line.trim();
    } else if (current !== undefined && kind === 'text' && /^\s+\S/.test(line)) current += ` ${line.trim()}`;
    else {
      if (current !== undefined) items.push(current);
      current = undefined;
    }
  }
  if (current !== undefined) items.push(current);
  return items;
}

/** The code block right after an HTML comment that starts with `marker`. */
function blockAfter(marker: string): string | undefined {
  const at = readme.indexOf(`<!-- ${marker}`);
  if (at < 0) return undefined;
  return /```\w*\n([\s\S]*?)```/.exec(readme.slice(at))?.[1];
}

const MAX_CELL = 80;

describe('README: one screen of decisions', () => {
  it('opens with what it is, whom it is for, a picture, and how it compares, on the first screen', () => {
    const firstScreen = lines.slice(0, 40).join('\n');
    expect(lines[0]).toBe('# interlock');
    expect(firstScreen).toMatch(/!\[[^\]]+\]\(docs\/images\/example-graph\.svg\)/);
    expect(firstScreen).toMatch(/^It is for /m);
    expect(firstScreen).toMatch(/^## Is it for you\?$/m);
    expect(firstScreen).toMatch(/^\| you want +\| the better tool +\|$/m);
  });

  it('is about 250 lines, and says where the rest is', () => {
    // 275: the first screen shows the Action's workflow step and the approvals section the maintainers' page.
    expect(lines.length).toBeLessThanOrEqual(275);
    for (const page of [
      'docs/action-reference.md',
      'docs/approvals.md',
      'docs/cli.md',
      'docs/graphs.md',
      'docs/DEPLOY.md',
      'CONTRIBUTING.md',
      'SECURITY.md',
    ])
      expect(readme).toContain(`](${page}`);
  });

  it('says plainly that no release is published yet, and how to use it until then', () => {
    expect(readme).toMatch(/\*\*Release status\.\*\* No release is published yet/);
    expect(readme).toMatch(/your fork \(`you\/interlock@main`\)/);
    expect(readme.match(/full commit\s+sha/g)).toHaveLength(1);
  });

  it('gives a local quick start on your own repository: install, a 10-line graph, validate, run, status, approve', () => {
    const graph = blockAfter('quick-start-graph');
    expect(graph?.trim().split('\n').length).toBeLessThanOrEqual(12);
    const commands = blockAfter('quick-start-commands') ?? '';
    for (const verb of ['validate', 'run', 'status', 'approve'])
      expect(commands).toMatch(new RegExp(`^interlock ${verb} `, 'm'));
    expect(readme).toContain('npm install --global ~/interlock');
    expect(readme).toMatch(/writes a `\.gitignore` of `\*` into `\.interlock\/`/);
  });

  it(`its workflow is ${EXAMPLE}, exactly`, () => {
    expect(blockAfter(EXAMPLE)).toBe(read(EXAMPLE));
  });

  it('the example workflow keeps no token in .git/config and asks for the permissions the README lists', () => {
    const workflow = read(EXAMPLE);
    expect(workflow).toMatch(/^ +- uses: OWNER\/interlock@v1$/m);
    expect(workflow).toMatch(/^ +persist-credentials: false\b/m);
    const permissions = (parse(workflow) as { permissions: Record<string, string> }).permissions;
    expect(permissions).toEqual({
      contents: 'write',
      issues: 'write',
      'pull-requests': 'write',
      actions: 'read',
      checks: 'write',
    });
    for (const [scope, level] of Object.entries(permissions))
      expect(readme).toContain(`\`${scope}: ${level}\``);
  });

  it('links every example workflow, the slash-command one included', () => {
    for (const f of [
      'interlock.yml',
      'interlock-comment.yml',
      'interlock-command.yml',
      'interlock-stuck.yml',
    ])
      expect(readme).toContain(`examples/workflows/${f}`);
  });

  it('every reference-style link names a file that exists', () => {
    const defs = [...readme.matchAll(/^\[[^\]]+\]: (\S+)$/gm)].map((m) => m[1]!);
    expect(defs.length).toBeGreaterThan(0);
    for (const target of defs)
      expect(existsSync(new URL(`../../${target}`, import.meta.url)), target).toBe(true);
  });
});

describe('the README and the pages its content moved to', () => {
  const PAGES = [
    'README.md',
    'docs/approvals.md',
    'docs/graphs.md',
    'docs/cli.md',
    'docs/DEPLOY.md',
    'CONTRIBUTING.md',
  ];
  const anchors = (path: string) =>
    new Set([...read(path).matchAll(/^#{1,4} (.+)$/gm)].map(([, h]) => anchorOf(h!)));

  it('each holds what moved out of the README', () => {
    const holds: Record<string, RegExp[]> = {
      'docs/approvals.md': [
        /^## Approving and settling$/m,
        /^\*\*Starting afresh\.\*\*/m,
        /^### Two ways to run it$/m,
      ],
      'docs/DEPLOY.md': [
        /^## Where the journal lives/m,
        /\*\*`check-run`\*\*/,
        /force-push/,
        /^## Behind a proxy$/m,
      ],
      'docs/graphs.md': [/^## Graph files$/m, /^## What a node's command gets$/m, /^## How a node runs$/m],
      'docs/cli.md': [/^## The commands$/m, /^## The journal$/m, /\.gitignore/],
      'CONTRIBUTING.md': [/^## Commands$/m, /EBADENGINE/, /TMPDIR/],
    };
    for (const [path, patterns] of Object.entries(holds))
      for (const p of patterns) expect(read(path), `${path}: ${p}`).toMatch(p);
  });

  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const path of PAGES) {
      for (const [, target, hash] of read(path).matchAll(/\]\(([^)#\s]*)(?:#([^)\s]+))?\)/g)) {
        if (/^https?:/.test(target!)) continue;
        const file = target ? new URL(target, new URL(`../../${path}`, import.meta.url)) : undefined;
        const rel = file ? file.pathname.slice(new URL('../../', import.meta.url).pathname.length) : path;
        if (file && !existsSync(file)) broken.push(`${path}: ${target}`);
        else if (hash && rel.endsWith('.md') && !anchors(rel).has(hash))
          broken.push(`${path}: ${target}#${hash}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('README: nothing runs on', () => {
  it('no line is over 300 characters, and prose wraps at about 110', () => {
    expect(lines.filter((l) => l.length > 300)).toEqual([]);
    expect(
      prose(readme)
        .filter((l) => l.kind === 'text' && l.line.length > 112)
        .map((l) => l.line),
    ).toEqual([]);
  });

  it('no list item is over 300 characters', () => {
    expect(listItems(readme).length).toBeGreaterThan(3);
    expect(listItems(readme).filter((i) => i.length > 300)).toEqual([]);
  });

  it(`has no table cell over ${MAX_CELL} characters (long text goes below the table)`, () => {
    const long = tableRows(readme)
      .flat()
      .filter((c) => c.length > MAX_CELL && !/^-+$/.test(c));
    expect(long).toEqual([]);
  });
});

describe('action.yml, as the Marketplace shows it', () => {
  const meta = parse(read('action.yml')) as {
    name: string;
    description: string;
    branding: Record<string, string>;
  };

  it('has a name, a one-line description, and branding', () => {
    expect(meta.name).toBe('interlock');
    expect(meta.description).toMatch(/^[^\n]{20,}$/);
    expect(meta.branding).toEqual({ icon: expect.any(String), color: expect.any(String) });
  });
});

describe('README: the Action and the page, as a Marketplace reader looks for them', () => {
  it('the first 80 lines show the workflow step with uses: and permissions:', () => {
    const first = lines.slice(0, 80).join('\n');
    expect(first).toMatch(/^ +- uses: OWNER\/interlock@v1$/m);
    expect(first).toMatch(
      /^permissions: \{ contents: write, issues: write, pull-requests: write, actions: read, checks: write \}$/m,
    );
  });

  it("the approvals section shows the maintainers' page and its screenshot", () => {
    const section = readme.slice(readme.indexOf('## Comment commands'), readme.indexOf('## Good to know'));
    expect(section).toContain('](docs/images/page.png)');
    expect(existsSync(new URL('../../docs/images/page.png', import.meta.url))).toBe(true);
    expect(section).toContain('`interlock ui`');
  });
});
