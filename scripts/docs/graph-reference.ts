// docs/graph-reference.md, written from the zod schemas of graph files and of .github/interlock.yml.
import { z } from 'zod';
import { ConfigSchema } from '../../src/config/schema.js';
import { graphJsonSchema } from '../../src/graph/schema/json-schema.js';
import { SkillSchema } from '../../src/graph/schema/schema.js';
import {
  anchorOf,
  at,
  code,
  fieldRows,
  type JsonSchema,
  type Link,
  type TableOptions,
  table,
} from './schema-table.js';

interface Section {
  heading: string;
  /** The short name other tables link with. */
  name: string;
  schema: JsonSchema;
  intro: string;
}

function linker(sections: Section[]): (s: JsonSchema) => Link | undefined {
  const bySchema = new Map<JsonSchema, Link>(
    sections.map((sec) => [sec.schema, { name: sec.name, anchor: anchorOf(sec.heading) }]),
  );
  return (s) => bySchema.get(s);
}

function render(sections: Section[], opts: TableOptions): string {
  return sections
    .map((sec) =>
      [`### ${sec.heading}`, '', sec.intro, '', table(fieldRows(sec.schema, opts)), ''].join('\n'),
    )
    .join('\n');
}

/** The evidence check kinds: each variant of `validates[]` is named by its one required key. */
function checkKinds(items: JsonSchema): Array<{ kind: string; schema: JsonSchema }> {
  return (items.anyOf ?? []).map((v) => {
    const kind = v.required?.[0];
    if (!kind) throw new Error('an evidence check variant has no required key');
    return { kind, schema: v };
  });
}

const LOCAL_KINDS = new Set(['file', 'command', 'output', 'git']);

export function graphReference(): string {
  const graph = graphJsonSchema() as JsonSchema;
  const config = z.toJSONSchema(ConfigSchema, { target: 'draft-2020-12', io: 'input' }) as JsonSchema;
  const skill = z.toJSONSchema(SkillSchema(), { target: 'draft-2020-12', io: 'input' }) as JsonSchema;
  const node = at(graph, ['properties', 'nodes', 'items']);
  const checks = at(node, ['properties', 'validates', 'items']);

  const graphSections: Section[] = [
    {
      heading: 'Top level of a graph file',
      name: 'graph',
      schema: graph,
      intro: 'Unknown fields are refused, here and at every level below.',
    },
    {
      heading: '`defaults`',
      name: 'defaults',
      schema: at(graph, ['properties', 'defaults']),
      intro: 'Values every node gets unless it sets its own.',
    },
    {
      heading: 'Node (`nodes[]`)',
      name: 'node',
      schema: node,
      intro: [
        'One unit of work. Exactly one of `run` or `prompt`, given directly or through its `skill`. The node',
        'is ready when every `depends_on` node is completed or skipped; ready nodes run in declaration order.',
      ].join('\n'),
    },
    {
      heading: 'Retry approach (`retry[]`)',
      name: 'approach',
      schema: at(node, ['properties', 'retry', 'items']),
      intro: [
        '`retry[0]` changes attempt 2 and `retry[1]` is attempt 3. A field an entry leaves out is the',
        "node's own. Attempt 2 always runs, with the failures of attempt 1 in its context, even without",
        '`retry[0]`. Attempt 3 happens only when `retry[1]` exists, and its `run`, `prompt`, `agent` or',
        "`skill` must differ from the node's own: an identical one is refused when the graph is loaded.",
      ].join('\n'),
    },
    {
      heading: 'Evidence checks (`validates[]`)',
      name: 'evidence check',
      schema: checks,
      intro: '',
    },
  ];
  const missing: string[] = [];
  const graphOpts: TableOptions = {
    linkOf: linker(graphSections),
    source: 'src/graph/schema/schema.ts',
    missing,
  };
  const kinds = checkKinds(checks);

  const checkDocs = kinds.map(({ kind, schema }) => {
    if (!schema.description)
      throw new Error(`the ${kind} check has no description in src/graph/schema/schema.ts`);
    const where = LOCAL_KINDS.has(kind)
      ? 'A local check: it runs in the CLI and in the Action.'
      : 'Answered through the GitHub API, so in the Action only: the CLI fails the check and says why.';
    return [
      `#### \`${kind}\``,
      '',
      schema.description,
      where,
      '',
      table(fieldRows(schema, graphOpts)),
      '',
    ].join('\n');
  });

  const configSections: Section[] = [
    {
      heading: 'Top level of `.github/interlock.yml`',
      name: 'configuration',
      schema: config,
      intro:
        'The file is optional: without it no route matches, and a workflow names the graph with `graph:`.',
    },
    {
      heading: 'Route (`routes[]`)',
      name: 'route',
      schema: at(config, ['properties', 'routes', 'items']),
      intro: [
        'A route matches when every field it gives matches the event; the first route that matches picks',
        'the graph. An event no route matches ends the step with `status=no-route`.',
      ].join('\n'),
    },
    {
      heading: '`approvals`',
      name: 'approvals',
      schema: at(config, ['properties', 'approvals']),
      intro:
        'Who may settle held and escalated nodes with `/approve-rerun`, `/settle` and `/fail-run` comments.',
    },
  ];
  const configOpts: TableOptions = {
    linkOf: linker(configSections),
    source: 'src/config/schema.ts',
    missing,
  };

  const skillFields = Object.keys(skill.properties ?? {}).map(code);

  const page = [
    '# Graph file reference',
    '',
    '<!-- Generated by `npm run docs` (scripts/gen-docs.ts) from src/graph/schema/schema.ts and src/config/schema.ts.',
    '     Do not edit: change the descriptions in the schema and run `npm run docs`. -->',
    '',
    'Every field of a graph file and of `.github/interlock.yml`, written from the same zod schema that',
    'validates them. Editors validate the files against [`schema/graph.schema.json`](../schema/graph.schema.json)',
    'and [`schema/config.schema.json`](../schema/config.schema.json) (add',
    '`# yaml-language-server: $schema=<path to the schema>` as the first line). Check a graph with',
    '`interlock validate <graph>`.',
    '',
    'A default written in words (such as "`defaults.replay`, else `never`") is applied when the graph is',
    'loaded, not by the schema. Strings that "may use `${{ }}`" are expressions in GitHub Actions syntax,',
    'with the contexts `github`, `inputs`, `nodes.<id>.outputs.<name>`, `nodes.<id>.status` and `run`.',
    '',
    '## Graph files',
    '',
    render(graphSections.slice(0, 4), graphOpts),
    `### ${graphSections[4]!.heading}`,
    '',
    'Every check of a node must pass for the attempt to be recorded; each result is kept in the journal with',
    'what it observed. An item names exactly one kind:',
    `${kinds.map(({ kind }) => `[\`${kind}\`](#${anchorOf(`\`${kind}\``)})`).join(', ')}. Strings in a check may`,
    'use `${{ }}`, for example `branch: ${{ nodes.push.outputs.branch }}`; the check runs after the',
    "command, so it may name this node's own outputs. In `command`, as in `run`, pass values through the",
    "node's `env` instead: the script gets them as variables, never as text pasted into it.",
    '',
    checkDocs.join('\n'),
    '### Skill files',
    '',
    '`skill: <name>` reads `skills/<name>.yml` (or `.yaml`, `.json`) beside the graph: a node template. The',
    "node's own fields override the skill's. A skill file may hold these fields of a node:",
    `${skillFields.join(', ')}.`,
    '',
    '### What loading checks beyond the schema',
    '',
    'Each error names the file, line and column, and the fix.',
    '',
    '- node ids are unique; `depends_on` names existing nodes other than the node itself (with a did-you-mean),',
    '  and the dependencies have no cycle (the error names the whole cycle);',
    '- a node has exactly one of `run` or `prompt`, and a `prompt` has an `agent` (its own or `defaults.agent`);',
    '- `run` holds no `${{`: expressions reach a script only through `env`;',
    '- every expression (in `execute_conditions`, `env`, `prompt`) parses; a condition is one expression;',
    '- every regular expression (`contains`, `matches`, `git.message`) compiles;',
    '- an `output` check names an output listed in `outputs`;',
    "- `retry[1]` differs from the node's own approach.",
    '',
    '## `.github/interlock.yml`',
    '',
    render(configSections, configOpts),
  ].join('\n');
  if (missing.length) throw new Error(`fields without a description:\n${missing.join('\n')}`);
  return page;
}
