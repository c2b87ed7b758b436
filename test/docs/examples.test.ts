import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { describe, expect, it } from 'vitest';
import { configJsonSchemaText } from '../../src/config/json-schema.js';
import { parseConfig } from '../../src/config/load.js';
import { route } from '../../src/config/route.js';
import { loadGraphFile } from '../../src/runner/journal-io/graph-file.js';

const root = new URL('../..', import.meta.url).pathname;
const workflows = join(root, 'examples/workflows');

describe('the examples a maintainer copies', () => {
  for (const name of readdirSync(workflows).filter((f) => f.endsWith('.yml'))) {
    it(`examples/workflows/${name} is a valid workflow by GitHub's own parser`, () => {
      const result = parseWorkflow(
        { name, content: readFileSync(join(workflows, name), 'utf8') },
        new NoOperationTraceWriter(),
      );
      expect(result.context.errors.getErrors().map((e) => e.message)).toEqual([]);
      expect(result.value).toBeDefined();
    });
  }

  it("GitHub's parser does report a broken workflow (the check above can fail)", () => {
    const result = parseWorkflow(
      { name: 'bad.yml', content: 'on: push\njobs:\n  a:\n    runz-on: ubuntu-latest\n' },
      new NoOperationTraceWriter(),
    );
    expect(
      result.context.errors
        .getErrors()
        .map((e) => e.message)
        .join('\n'),
    ).toContain("Unexpected value 'runz-on'");
  });

  it('the example routing file parses and routes a labeled issue to the example graph, which loads', () => {
    const config = parseConfig(
      'interlock.yml',
      readFileSync(join(root, 'examples/recipes/claude-code/.github/interlock.yml'), 'utf8'),
    );
    const m = route(config, {
      name: 'issues',
      payload: { action: 'labeled', label: { name: 'agent:fix' }, issue: { number: 1 } },
    });
    expect(m).toEqual({
      graph: '.github/interlock/claude-fix.yml',
      intent: 'issues.labeled label=agent:fix',
      index: 0,
    });
    const graph = loadGraphFile(join(root, 'examples/recipes/claude-code', m!.graph));
    expect(graph.nodes.map((n) => n.id)).toEqual(['branch', 'implement', 'commit', 'pull-request']);
  });

  it('the slash-command example names a route that parses and routes `/interlock fix` from a comment', () => {
    const text = readFileSync(join(workflows, 'interlock-command.yml'), 'utf8');
    const routes = text
      .split('\n')
      .filter((l) => l.startsWith('#   '))
      .map((l) => l.slice(2))
      .join('\n');
    const config = parseConfig('interlock-command.yml', routes);
    const m = route(config, {
      name: 'issue_comment',
      payload: { action: 'created', comment: { body: '/interlock fix' }, issue: { number: 5 } },
    });
    expect(m?.graph).toBe('.github/interlock/claude-fix.yml');
    expect(text).toContain("startsWith(github.event.comment.body, '/interlock fix')");
  });

  it('schema/config.schema.json is what the zod schema generates (run npm run schema)', () => {
    expect(readFileSync(join(root, 'schema/config.schema.json'), 'utf8')).toBe(configJsonSchemaText());
  });
});
