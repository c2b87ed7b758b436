// The recipes in docs/recipes/ are true: their graphs load, their workflows pass GitHub's own parser, and
// every `interlock` command they show runs here (the bundled CLI, in a temporary folder, with stand-ins for
// claude, npm and gh) with the outcome the page describes.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseComment } from '../../src/approvals/commands/parse.js';
import { parseConfig } from '../../src/config/load.js';
import { route } from '../../src/config/route.js';
import { loadGraphFile } from '../../src/runner/journal-io/graph-file.js';
import {
  type Checkpoint,
  cleanupSandboxes,
  type Exit,
  eventsOf,
  requireBundle,
  type Sandbox,
  sandbox,
} from '../crash/harness.js';
import { blocks, Recipe } from './recipe-commands.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const at = (p: string) => join(root, p);
const page = (name: string) => new Recipe(new URL(`../../docs/recipes/${name}.md`, import.meta.url));

const claude = page('claude-code');
const release = page('release');
const fanOut = page('fan-out');
const forEach = page('for-each');
const resume = page('resume-after-failure');
const unknown = page('unknown-outcome');
const RECIPES = [claude, release, fanOut, forEach, resume, unknown];

const TIMEOUT = 120_000;

beforeAll(() => requireBundle());
afterEach(cleanupSandboxes);

/** Files under a folder, recursively, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

// Stand-ins for the tools the recipes' nodes call. Each logs its calls to $FAKE_DIR.
const FAKES: Record<string, string> = {
  claude: `#!/usr/bin/env bash
# Stand-in for Claude Code: keeps its prompt, then fixes add() in calc.js as an agent would.
cat > "$FAKE_DIR/prompt-$INTERLOCK_ATTEMPT.txt"
sed -i 's/a - b/a + b/' calc.js
# --output-format json: one result object, as Claude Code prints it.
echo '{"type":"result","subtype":"success","is_error":false,"num_turns":4,"result":"claude: fixed add() in calc.js","total_cost_usd":0.21,"usage":{"input_tokens":900,"output_tokens":300}}'
`,
  npm: `#!/usr/bin/env bash
# Stand-in for npm: logs each call; publish and view use a registry file.
echo "npm $*" >> "$FAKE_DIR/npm.log"
case "$1" in
  ci|test) exit 0 ;;
  run) [ "$2" = build ] && mkdir -p dist && echo built > dist/index.js; exit 0 ;;
  publish)
    id=$(node -p 'const p = require("./package.json"); p.name + "@" + p.version')
    if grep -qx "$id" "$FAKE_DIR/registry" 2>/dev/null; then echo "npm error 403: cannot publish over $id" >&2; exit 1; fi
    echo "$id" >> "$FAKE_DIR/registry"
    echo "+ $id" ;;
  view)
    if grep -qx "$2" "$FAKE_DIR/registry" 2>/dev/null; then echo "\${2##*@}"; else echo "npm error 404 $2" >&2; exit 1; fi ;;
  *) echo "fake npm: $1 is not handled" >&2; exit 1 ;;
esac
`,
  gh: `#!/usr/bin/env bash
# Stand-in for the GitHub CLI: releases live in a file.
echo "gh $*" >> "$FAKE_DIR/gh.log"
case "$1 $2" in
  "release view") grep -qx "$3" "$FAKE_DIR/releases" 2>/dev/null ;;
  "release create") echo "$3" >> "$FAKE_DIR/releases"; echo "https://github.com/OWNER/REPO/releases/tag/$3" ;;
  *) echo "fake gh: $* is not handled" >&2; exit 1 ;;
esac
`,
};

/** Puts the named stand-ins first on PATH; returns the environment the CLI runs with. */
function fakes(sb: Sandbox, names: string[]): Record<string, string> {
  const bin = sb.path('.fake/bin');
  mkdirSync(bin, { recursive: true });
  for (const n of names) {
    sb.write(`.fake/bin/${n}`, FAKES[n]!);
    chmodSync(join(bin, n), 0o755);
  }
  return {
    PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    FAKE_DIR: sb.path('.fake'),
    npm_config_update_notifier: 'false',
  };
}

/** Copies a recipe's `.github` folder into the sandbox, as a maintainer copies it into a repository. */
function copyRecipe(sb: Sandbox, name: string): void {
  cpSync(at(`examples/recipes/${name}/.github`), sb.path('.github'), { recursive: true });
}

/** Runs a command exactly as the recipe shows it. */
async function shown(sb: Sandbox, recipe: Recipe, text: string, env: Record<string, string>): Promise<Exit> {
  const c = recipe.shown(text);
  return sb.cli(c.args, env);
}

async function checkpoint(sb: Sandbox, runId: string, env: Record<string, string>): Promise<Checkpoint> {
  const r = await sb.cli(['status', '--run-id', runId, '--json'], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Checkpoint & { status: string };
}

function git(sb: Sandbox, ...args: string[]): string {
  return execFileSync('git', args, { cwd: sb.dir, encoding: 'utf8' }).trim();
}

/** A small repository with a bug in add(): the project the Claude Code recipe's agent works on. */
function calcRepo(sb: Sandbox, opts: { fixture: boolean }): void {
  sb.write('calc.js', 'exports.add = (a, b) => a - b;\n');
  sb.write(
    'test.js',
    [
      "const { existsSync } = require('node:fs');",
      "const { add } = require('./calc.js');",
      "if (!existsSync('fixture.json')) { console.error('fixture.json is missing'); process.exit(1); }",
      "if (add(2, 2) !== 4) { console.error('add(2, 2) is ' + add(2, 2)); process.exit(1); }",
      "console.log('ok');",
      '',
    ].join('\n'),
  );
  sb.write('package.json', '{ "name": "calc", "version": "1.0.0", "scripts": { "test": "node test.js" } }\n');
  if (opts.fixture) sb.write('fixture.json', '{}\n');
  sb.write('.gitignore', '.interlock/\n.fake/\n.tmp/\n');
  git(sb, 'init', '-q', '-b', 'main');
  git(sb, 'config', 'user.name', 'maintainer');
  git(sb, 'config', 'user.email', 'maintainer@example.com');
  git(sb, 'add', '-A');
  git(sb, 'commit', '-q', '-m', 'calc');
}

describe('the recipe files', () => {
  const recipeDirs = readdirSync(at('examples/recipes'));

  it('every recipe folder holds graphs that load and workflows or routes that use them', () => {
    expect(recipeDirs.sort()).toEqual(['claude-code', 'copilot', 'fan-out', 'for-each', 'gemini', 'release']);
    for (const dir of recipeDirs) {
      const files = filesUnder(at(`examples/recipes/${dir}`));
      const graphs = files.filter((f) => f.startsWith('.github/interlock/'));
      expect(graphs.length, dir).toBeGreaterThan(0);
      for (const g of graphs)
        expect(loadGraphFile(at(`examples/recipes/${dir}/${g}`)).nodes.length).toBeGreaterThan(0);
    }
  });

  const workflows = recipeDirs.flatMap((dir) =>
    filesUnder(at(`examples/recipes/${dir}`))
      .filter((f) => f.startsWith('.github/workflows/'))
      .map((f) => `examples/recipes/${dir}/${f}`),
  );
  for (const file of workflows) {
    it(`${file} is a valid workflow by GitHub's own parser, and its graph exists`, () => {
      const content = readFileSync(at(file), 'utf8');
      const result = parseWorkflow({ name: file, content }, new NoOperationTraceWriter());
      expect(result.context.errors.getErrors().map((e) => e.message)).toEqual([]);
      const doc = parseYaml(content) as {
        jobs: Record<string, { steps: Array<{ uses?: string; with?: Record<string, string> }> }>;
      };
      const steps = Object.values(doc.jobs).flatMap((j) =>
        j.steps.filter((s) => s.uses?.includes('interlock')),
      );
      expect(steps.length).toBeGreaterThan(0);
      const recipeRoot = file.slice(0, file.indexOf('/.github/'));
      for (const s of steps) {
        expect(s.uses).toBe('OWNER/interlock@v1');
        // `${{ !inputs.run-id && '<graph>' || '' }}`: the graph, unless a run id names the run.
        const graph = /'(\.github\/interlock\/[^']+)'/.exec(s.with!.graph!)?.[1] ?? s.with!.graph!;
        expect(existsSync(at(`${recipeRoot}/${graph}`)), graph).toBe(true);
      }
    });
  }

  it("the Copilot and Gemini variants are the Claude Code recipe's graph and route with the engine swapped", () => {
    const claudeGraph = loadGraphFile(at('examples/recipes/claude-code/.github/interlock/claude-fix.yml'));
    // What the engine changes: its agent line, the model's host, and budgets in tokens (no cost reported).
    const rest = (g: typeof claudeGraph) =>
      g.nodes.map(({ approaches, budget: _b, network: _n, ...n }) => ({
        ...n,
        approaches: approaches.map(({ agent: _a, engine: _e, ...a }) => a),
      }));
    for (const [engine, host] of [
      ['copilot', 'api.anthropic.com:443'],
      ['gemini', 'generativelanguage.googleapis.com:443'],
    ] as const) {
      const dir = `examples/recipes/${engine}`;
      const config = parseConfig('interlock.yml', readFileSync(at(`${dir}/.github/interlock.yml`), 'utf8'));
      const m = route(config, {
        name: 'issues',
        payload: { action: 'labeled', label: { name: 'agent:fix' }, issue: { number: 42 } },
      });
      expect(m?.graph).toBe(`.github/interlock/${engine}-fix.yml`);
      const graph = loadGraphFile(at(`${dir}/${m!.graph}`));
      expect(rest(graph)).toEqual(rest(claudeGraph));
      const implement = graph.nodes.find((n) => n.id === 'implement')!;
      expect(implement.approaches.map((a) => a.engine)).toEqual([engine, engine, engine]);
      expect(implement.budget).toEqual({ tokens: 2000000, turns: 40 });
      expect(graph.budget).toEqual({ tokens: 5000000 });
      expect(graph.nodes.map((n) => n.network?.allow)).toEqual(graph.nodes.map(() => [host]));
    }
  });

  it('the Claude Code routing file sends an issue labeled agent:fix to the recipe graph, which loads', () => {
    const dir = 'examples/recipes/claude-code';
    const config = parseConfig('interlock.yml', readFileSync(at(`${dir}/.github/interlock.yml`), 'utf8'));
    const m = route(config, {
      name: 'issues',
      payload: { action: 'labeled', label: { name: 'agent:fix' }, issue: { number: 42 } },
    });
    expect(m?.graph).toBe('.github/interlock/claude-fix.yml');
    const graph = loadGraphFile(at(`${dir}/${m!.graph}`));
    expect(graph.nodes.map((n) => [n.id, n.replay])).toEqual([
      ['branch', 'safe'],
      ['implement', 'never'],
      ['commit', 'safe'],
      ['pull-request', 'safe'],
    ]);
    // No node holds a GitHub token: the pull request is an effect interlock performs itself.
    expect(graph.nodes.find((n) => n.id === 'pull-request')?.effect).toHaveProperty('pull_request');
    expect(graph.nodes.filter((n) => n.effect).map((n) => n.id)).toEqual(['pull-request']);
  });

  it('the release graph publishes with replay: never and everything else with replay: safe', () => {
    const graph = loadGraphFile(at('examples/recipes/release/.github/interlock/release.yml'));
    expect(graph.nodes.map((n) => [n.id, n.replay])).toEqual([
      ['version', 'safe'],
      ['test', 'safe'],
      ['publish', 'never'],
      ['github-release', 'safe'],
    ]);
  });

  it('every link in the recipes points at a file that exists', () => {
    for (const r of RECIPES.concat(page('README'))) {
      for (const [, target] of r.markdown.matchAll(/\]\(([^)#]+)(#[^)]*)?\)/g)) {
        if (/^https?:/.test(target!)) continue;
        const path = fileURLToPath(new URL(target!, r.file));
        expect(existsSync(path), `${r.file.pathname}: ${target}`).toBe(true);
      }
    }
  });

  it('every comment command the recipes show is one interlock reads', () => {
    const shownCommands: string[] = [];
    for (const r of RECIPES) {
      for (const b of blocks(r.markdown, 'text'))
        shownCommands.push(...b.split('\n').filter((l) => /^\/(approve-rerun|settle|fail-run)\b/.test(l)));
      // Inline ones with arguments: "`/settle publish npm view shows 1.4.0`", not a mention of "`/settle`".
      for (const [, c] of r.markdown.matchAll(/`(\/(?:approve-rerun|settle|fail-run) [^`]+)`/g))
        shownCommands.push(c!);
    }
    expect(shownCommands.length).toBeGreaterThanOrEqual(6);
    for (const c of shownCommands) expect(parseComment(c), c).toMatchObject({ kind: 'command' });
  });
});

describe('recipe: a Claude Code pipeline', () => {
  it(
    'runs branch, implement and commit on a clone: the tests pass, the fix is committed, the pull request is next',
    async (ctx) => {
      const sb = sandbox(ctx, 'interlock-recipe-');
      copyRecipe(sb, 'claude-code');
      calcRepo(sb, { fixture: true });
      const env = fakes(sb, ['claude']);
      // Where the recipe says to save it: beside the clone, outside its work tree.
      const event = resolve(sb.dir, '..', 'issue-42.json');
      writeFileSync(event, blocks(claude.markdown, 'json')[0]!);
      onTestFinished(() => rmSync(event, { force: true }));
      const graph = '.github/interlock/claude-fix.yml';

      const v = await shown(sb, claude, `interlock validate ${graph}`, env);
      expect(v.code, v.stderr).toBe(0);
      for (const node of ['branch', 'implement', 'commit']) {
        const text =
          node === 'branch'
            ? `interlock run ${graph} --event ../issue-42.json --run-id claude-fix/issue-42 --node branch`
            : `interlock run ${graph} --run-id claude-fix/issue-42 --node ${node}`;
        const r = await shown(sb, claude, text, env);
        expect(r.code, `${node}: ${r.stderr}`).toBe(0);
      }
      const s = await shown(sb, claude, 'interlock status --run-id claude-fix/issue-42', env);
      expect(s.code).toBe(0);
      expect(s.stdout).toMatch(/implement\s+completed\s+1\b.*command/);

      const cp = await checkpoint(sb, 'claude-fix/issue-42', env);
      expect(cp.completed_nodes).toEqual(['branch', 'implement', 'commit']);
      expect(cp.ready_nodes).toEqual(['pull-request']);
      expect(git(sb, 'branch', '--show-current')).toBe('interlock/issue-42');
      expect(git(sb, 'log', '-1', '--format=%s')).toBe('fix: issue #42');
      expect(readFileSync(sb.path('calc.js'), 'utf8')).toContain('a + b');
      // The fix's commit holds what the agent changed, not the event the run was started from.
      expect(git(sb, 'show', '--name-only', '--format=', 'HEAD')).not.toMatch(/issue/);
      // The issue's text reached the agent as prompt text.
      expect(sb.read('.fake/prompt-1.txt')).toContain('add() returns the wrong sum');
      expect(existsSync(sb.path('.interlock/runs/claude-fix/issue-42.logs/implement-1.log'))).toBe(true);
      const recorded = eventsOf(sb.journal('claude-fix/issue-42'), 'NodeRecorded', 'implement')[0]!;
      // The agent's JSON result is the attempt's usage, under the recipe's budget.
      expect(recorded.usage).toMatchObject({
        cost_usd: 0.21,
        turns: 4,
        input_tokens: 900,
        output_tokens: 300,
      });
      expect(recorded.evidence.map((e) => [e.check, e.passed])).toEqual([
        ['command npm test', true],
        ['command test -n "$(git status --porcelain)"', true],
      ]);
    },
    TIMEOUT,
  );
});

/** A sandbox for the release graph: package.json at 1.4.0, and stand-ins for npm and gh. */
function releaseSandbox(sb: Sandbox): Record<string, string> {
  copyRecipe(sb, 'release');
  sb.write('package.json', '{ "name": "my-package", "version": "1.4.0" }\n');
  return fakes(sb, ['npm', 'gh']);
}

const RELEASE = '.github/interlock/release.yml';

describe('recipe: a release pipeline', () => {
  it(
    'runs every node in order, publishes once and completes',
    async (ctx) => {
      const sb = sandbox(ctx, 'interlock-recipe-');
      const env = releaseSandbox(sb);
      expect((await shown(sb, release, `interlock validate ${RELEASE}`, env)).code).toBe(0);
      const r = await shown(
        sb,
        release,
        `interlock run ${RELEASE} --run-id release/v1.4.0 --input version=1.4.0 --all`,
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      const s = await shown(sb, release, 'interlock status --run-id release/v1.4.0', env);
      expect(s.stdout).toContain('completed');
      expect(s.stdout).toMatch(/publish\s+completed\s+1\b/);

      const cp = await checkpoint(sb, 'release/v1.4.0', env);
      expect(cp.status).toBe('completed');
      expect(cp.completed_nodes).toEqual(['version', 'test', 'publish', 'github-release']);
      expect(sb.lines('.fake/registry')).toEqual(['my-package@1.4.0']);
      expect(sb.lines('.fake/releases')).toEqual(['v1.4.0']);
      const published = eventsOf(sb.journal('release/v1.4.0'), 'NodeRecorded', 'publish')[0]!;
      expect(published.evidence[0]!.passed).toBe(true);
    },
    TIMEOUT,
  );
});

describe('recipe: a matrix fan-out', () => {
  it(
    'three processes on one journal dispatch each node once; then build completes the run',
    async (ctx) => {
      const sb = sandbox(ctx, 'interlock-recipe-');
      copyRecipe(sb, 'fan-out');
      const env = fakes(sb, ['npm']);
      const graph = '.github/interlock/verify.yml';
      expect((await shown(sb, fanOut, `interlock validate ${graph}`, env)).code).toBe(0);

      const parallel = ['lint', 'unit', 'e2e'].map((n) => {
        const c = fanOut.shown(`interlock run ${graph} --run-id verify/local --node ${n}`);
        expect(c.background).toBe(true);
        return sb.cli(c.args, env);
      });
      for (const r of await Promise.all(parallel)) expect(r.code, r.stderr).toBe(0);

      const st = await shown(sb, fanOut, 'interlock status --run-id verify/local --json', env);
      const cp = JSON.parse(st.stdout) as Checkpoint;
      expect([...cp.completed_nodes].sort()).toEqual(['e2e', 'lint', 'unit']);
      expect(cp.ready_nodes).toEqual(['build']);

      const all = await shown(sb, fanOut, `interlock run ${graph} --run-id verify/local --all`, env);
      expect(all.code, all.stderr).toBe(0);
      const journal = sb.journal('verify/local');
      for (const n of ['lint', 'unit', 'e2e', 'build'])
        expect(eventsOf(journal, 'NodeDispatched', n)).toHaveLength(1);
      expect((await checkpoint(sb, 'verify/local', env)).status).toBe('completed');
      expect(sb.read('dist/index.js')).toBe('built\n');
    },
    TIMEOUT,
  );
});

describe('recipe: a node per item, for_each in a matrix', () => {
  it(
    'the list is journaled once; three processes run an instance each; the join and integrate complete the run',
    async (ctx) => {
      const sb = sandbox(ctx, 'interlock-recipe-');
      copyRecipe(sb, 'for-each');
      cpSync(at('examples/recipes/for-each/tasks.json'), sb.path('tasks.json'));
      const env = fakes(sb, []);
      const graph = '.github/interlock/tasks.yml';
      const run = `interlock run ${graph} --run-id tasks/local`;
      expect((await shown(sb, forEach, `interlock validate ${graph}`, env)).code).toBe(0);
      expect((await shown(sb, forEach, `${run} --node plan`, env)).code).toBe(0);
      const expanded = await shown(sb, forEach, `${run} --node work`, env);
      expect(expanded.stderr).toContain(
        'expanded "work" into 3 instance(s): work[docs], work[tests], work[code]',
      );
      const parallel = ['docs', 'tests', 'code'].map((k) => {
        const c = forEach.shown(`${run} --node 'work[${k}]'`);
        expect(c.background).toBe(true);
        return sb.cli(c.args, env);
      });
      for (const r of await Promise.all(parallel)) expect(r.code, r.stderr).toBe(0);
      const st = await shown(sb, forEach, 'interlock status --run-id tasks/local', env);
      expect(st.stdout).toMatch(/work\s+expanded .*3 instances: 3 completed/);
      const all = await shown(sb, forEach, `${run} --all`, env);
      expect(all.code, all.stderr).toBe(0);
      const journal = sb.journal('tasks/local');
      expect(eventsOf(journal, 'NodeExpanded')).toHaveLength(1);
      for (const n of ['work[docs]', 'work[tests]', 'work[code]', 'integrate'])
        expect(eventsOf(journal, 'NodeDispatched', n)).toHaveLength(1);
      expect(JSON.parse(sb.read('summaries.json')!)).toEqual([
        { summary: 'done: Document the new flag' },
        { summary: 'done: Test the new flag' },
        { summary: 'done: Implement the new flag' },
      ]);
      expect((await checkpoint(sb, 'tasks/local', env)).status).toBe('completed');
    },
    TIMEOUT,
  );
});

/** The Claude Code graph with `implement` escalated: npm test fails three times for want of fixture.json. */
async function escalated(sb: Sandbox): Promise<Record<string, string>> {
  copyRecipe(sb, 'claude-code');
  calcRepo(sb, { fixture: false });
  const env = fakes(sb, ['claude']);
  // Outside the work tree, as the recipe says (one file per sandbox).
  const event = resolve(sb.dir, '..', `${basename(sb.dir)}-issue-7.json`);
  writeFileSync(
    event,
    JSON.stringify({ action: 'labeled', issue: { number: 7, title: 'add() is wrong', body: '' } }),
  );
  onTestFinished(() => rmSync(event, { force: true }));
  const r = await sb.cli(
    ['run', '.github/interlock/claude-fix.yml', '--event', event, '--run-id', 'claude-fix/issue-7', '--all'],
    env,
  );
  expect(r.code, r.stderr).toBe(3);
  return env;
}

describe('recipe: resuming after a failure', () => {
  it(
    'status shows the escalation report; an approved rerun after the fix passes and the run goes on',
    async (ctx) => {
      const sb = sandbox(ctx, 'interlock-recipe-');
      const env = await escalated(sb);
      const s = await shown(sb, resume, 'interlock status --run-id claude-fix/issue-7', env);
      expect(s.code).toBe(0);
      const [escalatedLine, ...report] = blocks(resume.markdown, 'text')[0]!.trim().split('\n');
      expect(s.stdout).toContain(escalatedLine);
      for (const line of report) {
        // The page shortens with "…"; what it shows before each "…" is what status prints.
        for (const part of line
          .split('…')
          .map((p) => p.trim())
          .filter(Boolean))
          expect(s.stdout).toContain(part);
      }
      const before = await checkpoint(sb, 'claude-fix/issue-7', env);
      expect(before).toMatchObject({
        status: 'blocked',
        escalated_nodes: ['implement'],
        rolled_back_to: 'branch',
      });

      // The cause outside the node: the fixture the tests need. Fixed, then a rerun approved.
      sb.write('fixture.json', '{}\n');
      const a = await shown(
        sb,
        resume,
        'interlock approve-rerun implement --by alice --reason "fixed the broken fixture" --run-id claude-fix/issue-7',
        env,
      );
      expect(a.code, a.stderr).toBe(0);
      const r = await shown(
        sb,
        resume,
        'interlock run .github/interlock/claude-fix.yml --run-id claude-fix/issue-7 --node implement',
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      const cp = await checkpoint(sb, 'claude-fix/issue-7', env);
      expect(cp.attempts.implement).toBe(4);
      expect(cp.completed_nodes).toEqual(['branch', 'implement']);
      expect(cp.ready_nodes).toEqual(['commit']);
      const journal = sb.journal('claude-fix/issue-7');
      expect(eventsOf(journal, 'RerunApproved', 'implement')[0]).toMatchObject({
        approved_by: 'alice',
        attempt: 3,
      });
      // One more attempt, with the last approach and the failures in its context.
      expect(eventsOf(journal, 'NodeDispatched', 'implement').map((e) => e.approach)).toEqual([
        'default',
        'retry[0]',
        'retry[1]',
        'retry[1]',
      ]);
      expect(sb.read('.fake/prompt-4.txt')).toContain('fixture.json is missing');
    },
    TIMEOUT,
  );

  it(
    'settle records the node as done by a named person, and the run goes on',
    async (ctx) => {
      const sb = sandbox(ctx, 'interlock-recipe-');
      const env = await escalated(sb);
      const r = await shown(
        sb,
        resume,
        'interlock settle implement --by alice --note "finished the fix by hand in 3f2a1bc" --run-id claude-fix/issue-7',
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      const cp = await checkpoint(sb, 'claude-fix/issue-7', env);
      expect(cp.completed_nodes).toEqual(['branch', 'implement']);
      expect(cp.ready_nodes).toEqual(['commit']);
      const rec = eventsOf(sb.journal('claude-fix/issue-7'), 'NodeRecorded', 'implement')[0]!;
      expect(rec).toMatchObject({ recorded_by: 'alice', note: 'finished the fix by hand in 3f2a1bc' });
      expect(rec.evidence[0]!.check).toBe('person');
    },
    TIMEOUT,
  );

  it(
    'fail-run ends the run, recording who and why',
    async (ctx) => {
      const sb = sandbox(ctx, 'interlock-recipe-');
      const env = await escalated(sb);
      const r = await shown(
        sb,
        resume,
        'interlock fail-run --by alice --reason "duplicate of #12" --run-id claude-fix/issue-7',
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      const cp = (await checkpoint(sb, 'claude-fix/issue-7', env)) as Checkpoint & { ended: unknown };
      expect(cp.status).toBe('failed');
      expect(cp.ended).toEqual({ type: 'RunFailed', reason: 'duplicate of #12', by: 'alice' });
    },
    TIMEOUT,
  );
});

/**
 * The release run up to `publish`, then `publish` killed by a failpoint: after its command ran (the version
 * reached the registry) or right after its dispatch was stored (the command never started).
 */
async function publishInterrupted(sb: Sandbox, point: 'after-command' | 'after-dispatch-write') {
  const env = releaseSandbox(sb);
  const base = ['run', RELEASE, '--run-id', 'release/v1.4.0'];
  expect((await sb.cli([...base, '--input', 'version=1.4.0', '--node', 'version'], env)).code).toBe(0);
  expect((await sb.cli([...base, '--node', 'test'], env)).code).toBe(0);
  const killed = await sb.cli([...base, '--node', 'publish'], { ...env, INTERLOCK_FAILPOINTS: point });
  expect(killed.signal).toBe('SIGKILL');
  return env;
}

describe('recipe: settling an unknown outcome by hand', () => {
  it(
    'it happened: the held publish is checked, settled, and the run completes without publishing again',
    async (ctx) => {
      const sb = sandbox(ctx, 'interlock-recipe-');
      const env = await publishInterrupted(sb, 'after-command');
      const rec = await shown(sb, unknown, 'interlock recover --run-id release/v1.4.0', env);
      expect(rec.stdout).toContain(
        'recovered: "publish" attempt 1 was interrupted; held until a person approves a rerun or settles it',
      );
      const st = await shown(sb, unknown, 'interlock status --run-id release/v1.4.0', env);
      expect(st.stdout).toMatch(/publish\s+held/);
      expect(st.stdout).toContain('interlock settle publish --note');

      // The checks the page names: the registry has the version, and the attempt's log ends with npm's "+ id".
      expect(sb.lines('.fake/registry')).toEqual(['my-package@1.4.0']);
      expect(sb.read('.interlock/runs/release/v1.4.0.logs/publish-1.log')).toContain('+ my-package@1.4.0');

      const s = await shown(
        sb,
        unknown,
        'interlock settle publish --by alice --note "npm view shows 1.4.0" --run-id release/v1.4.0',
        env,
      );
      expect(s.code, s.stderr).toBe(0);
      const r = await shown(sb, unknown, `interlock run ${RELEASE} --run-id release/v1.4.0 --all`, env);
      expect(r.code, r.stderr).toBe(0);
      const cp = await checkpoint(sb, 'release/v1.4.0', env);
      expect(cp.status).toBe('completed');
      expect(cp.attempts.publish).toBe(1);
      expect(sb.lines('.fake/npm.log').filter((l) => l.startsWith('npm publish'))).toHaveLength(1);
      expect(sb.lines('.fake/releases')).toEqual(['v1.4.0']);
    },
    TIMEOUT,
  );

  it(
    'it did not happen: no log, no version; an approved rerun publishes exactly once',
    async (ctx) => {
      const sb = sandbox(ctx, 'interlock-recipe-');
      const env = await publishInterrupted(sb, 'after-dispatch-write');
      const rec = await shown(sb, unknown, 'interlock recover --run-id release/v1.4.0', env);
      expect(rec.stdout).toContain('recovered: "publish" attempt 1 was interrupted; held until a person');
      expect(sb.exists('.interlock/runs/release/v1.4.0.logs/publish-1.log')).toBe(false);
      expect(sb.lines('.fake/registry')).toEqual([]);

      const a = await shown(
        sb,
        unknown,
        'interlock approve-rerun publish --by alice --reason "npm has no 1.4.0" --run-id release/v1.4.0',
        env,
      );
      expect(a.code, a.stderr).toBe(0);
      const r = await sb.cli(
        unknown.shown(`interlock run ${RELEASE} --run-id release/v1.4.0 --all`).args,
        env,
      );
      expect(r.code, r.stderr).toBe(0);
      const cp = await checkpoint(sb, 'release/v1.4.0', env);
      expect(cp.status).toBe('completed');
      expect(cp.attempts.publish).toBe(2);
      expect(sb.lines('.fake/registry')).toEqual(['my-package@1.4.0']);
      const context = eventsOf(sb.journal('release/v1.4.0'), 'NodeDispatched', 'publish');
      expect(context.map((e) => e.attempt)).toEqual([1, 2]);
    },
    TIMEOUT,
  );
});

describe('the recipes show nothing untested', () => {
  it('every interlock command a recipe shows was run by a test above', () => {
    for (const r of RECIPES) {
      expect(r.commands.length, r.file.pathname).toBeGreaterThan(0);
      expect(r.notRun(), r.file.pathname).toEqual([]);
    }
  });
});
