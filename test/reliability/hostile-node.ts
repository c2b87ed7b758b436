/**
 * The hostile-node attempts and how each one's outcome is read from what the step left behind: the runner's view
 * of its log (test/support/runner-log.ts), the runner's files, the local GitHub, the journal and the node's own
 * report. Shared by the suite (test/reliability/hostile-node.test.ts) and the docs table.
 */
import { OUTPUT_NAME_PATTERN } from '../../src/journal/events/output-name.js';
import type { StepResult } from '../support/action-process.js';
import type { RepoState } from '../support/github-server.js';
import type { RecordedRequest } from '../support/model-server.js';

export interface Observed {
  step: StepResult;
  /** What the node reported it found, by attempt. */
  report: Map<string, string>;
  repo: RepoState;
  /** Every request that reached the model API upstream of the key proxy. */
  model: RecordedRequest[];
  /** Every evidence item, failure message and output name the journal holds. */
  evidence: { check: string; passed: boolean; observed: string }[];
  failures: string[];
  outputNames: string[];
}

export interface Outcome {
  /** True when the attempt had no effect on the run. */
  blocked: boolean;
  what: string;
}

export interface Attempt {
  attempt: string;
  outcome: (o: Observed) => Outcome;
  /** Where the outcome depends on timing under the plain setup (a race with the action's own output). */
  racy?: true;
}

/** `https://github.com/acme/widgets/runs/1013` as `runs/1013`, to keep the table's cells short. */
const shortUrls = (text: string) => text.replace(/https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/runs\//g, 'runs/');
const open = (what: string): Outcome => ({ blocked: false, what });
const shut = (what: string): Outcome => ({ blocked: true, what });

function output(name: string, value: string): Attempt['outcome'] {
  return (o) =>
    o.step.runner.outputs[name] === value
      ? open(`the runner sets step output ${name}=${value}`)
      : shut('the runner ignores it (inside stop-commands)');
}

function annotation(text: string): Attempt['outcome'] {
  return (o) => {
    const a = o.step.runner.annotations.find((x) => x.message.includes(text));
    return a ? open(`the runner shows a forged ${a.kind} annotation`) : shut('the runner ignores it');
  };
}

/** A credential the node looked for: open when it found a token there. */
function credential(row: string): Attempt['outcome'] {
  return (o) => {
    const found = o.report.get(row) ?? 'not tried';
    return /gh[ps]_/.test(found) ? open(`found ${found}`) : shut(found === 'none' ? 'nothing there' : found);
  };
}

/** A model key the node looked for: open when it found a real one (a placeholder is no key). */
function modelKey(row: string): Attempt['outcome'] {
  return (o) => {
    const found = o.report.get(row) ?? 'not tried';
    return /sk-(ant-)?planted/.test(found)
      ? open(`found ${found}`)
      : shut(found === 'none' ? 'nothing there' : found);
  };
}

/** Requests the node sent to the key proxy: open when one of them reached the upstream. */
function throughProxy(row: string, tag: string): Attempt['outcome'] {
  return (o) => {
    const got = o.model.filter((r) => r.headers['x-hostile'] === tag);
    const said = o.report.get(row) ?? 'not tried';
    return got.length
      ? open(`reached the model API: ${got.map((r) => `${r.method} ${r.path}`).join(', ')}`)
      : shut(`refused by the proxy (${said}); nothing reached the model API`);
  };
}

function runnerFile(row: string, written: (o: Observed) => boolean): Attempt['outcome'] {
  return (o) => (written(o) ? open('written: the runner reads it') : shut(o.report.get(row) ?? 'not tried'));
}

export const ATTEMPTS: Attempt[] = [
  { attempt: '`::set-output name=verdict::approved` on stdout', outcome: output('verdict', 'approved') },
  {
    attempt: '`note: ##[set-output name=output-verdict;]approved` (legacy form, mid-line)',
    outcome: output('output-verdict', 'approved'),
  },
  { attempt: '`U+0085` then `::error::` (.NET TrimStart whitespace)', outcome: annotation('forged-nel') },
  { attempt: '`U+2028` then `::warning::`', outcome: annotation('forged-ls') },
  { attempt: '`\\r` then `::set-output` (the runner ends a line at `\\r`)', outcome: output('cr', 'forged') },
  {
    attempt: "`::add-mask::interlock` (hide interlock's own words)",
    outcome: (o) =>
      o.step.runner.masks.includes('interlock')
        ? open('the runner masks "interlock"')
        : shut('the runner ignores it'),
  },
  { attempt: '`::notice::` on stderr', outcome: annotation('forged-stderr') },
  {
    attempt: "`::stop-commands::` never resumed (silence interlock's annotations)",
    outcome: (o) =>
      o.step.runner.stopped
        ? open(`commands stay stopped (token ${o.step.runner.stopToken}): interlock's own are ignored`)
        : shut('ignored: interlock resumes its own window with a token the node never saw'),
  },
  {
    attempt: 'an output named `.x<<` in `$INTERLOCK_OUTPUT`',
    outcome: (o) => {
      if (o.step.runner.errors.length) return open(`breaks GITHUB_OUTPUT: ${o.step.runner.errors[0]}`);
      const bad = o.outputNames.find((n) => !OUTPUT_NAME_PATTERN.test(n));
      if (bad !== undefined) return open(`journaled as output "${bad}"`);
      const refused = o.failures.find((m) => m.includes('was refused: output names use'));
      return refused ? shut(`the attempt fails: ${refused.split(':')[0]}`) : open('accepted silently');
    },
  },
  {
    attempt: 'append to `$GITHUB_OUTPUT`',
    outcome: runnerFile('file GITHUB_OUTPUT', (o) => o.step.runner.outputs['forged-file'] === '1'),
  },
  {
    attempt: 'append to `$GITHUB_STEP_SUMMARY`',
    outcome: runnerFile('file GITHUB_STEP_SUMMARY', (o) => o.step.summary.includes('forged-summary')),
  },
  {
    attempt: 'append to `$GITHUB_ENV`',
    outcome: runnerFile('file GITHUB_ENV', (o) => o.step.envFile.includes('FORGED')),
  },
  {
    attempt: 'append to `$GITHUB_PATH`',
    outcome: runnerFile('file GITHUB_PATH', (o) => o.step.pathFile.includes('/forged')),
  },
  {
    attempt: 'append to every file in `$RUNNER_TEMP`',
    outcome: (o) => {
      const r = o.report.get('write RUNNER_TEMP') ?? 'not tried';
      return r.startsWith('wrote') ? open(r) : shut(r);
    },
  },
  { attempt: '`INPUT_TOKEN` from its environment', outcome: credential('env INPUT_TOKEN') },
  {
    attempt: '`GH_TOKEN` from its environment (the step env holds one)',
    outcome: credential('env GH_TOKEN'),
  },
  {
    attempt: '`ACTIONS_RUNTIME_TOKEN` from its environment',
    outcome: credential('env ACTIONS_RUNTIME_TOKEN'),
  },
  {
    attempt: "`/proc/<action pid>/environ` (the action's token)",
    outcome: credential('/proc/<action>/environ'),
  },
  { attempt: "`.git/config` (actions/checkout's extraheader)", outcome: credential('.git/config') },
  { attempt: '`~/.git-credentials`', outcome: credential('~/.git-credentials') },
  {
    attempt: "rewrite the action's bundle (its post step runs with the token)",
    outcome: (o) => {
      const r = o.report.get('rewrite the action bundle') ?? 'not tried';
      return r === 'writable' ? open('writable') : shut(r);
    },
  },
  {
    attempt: 'write `runs/…` on the journal branch with every token found',
    outcome: (o) =>
      o.repo.branches().some((b) => o.repo.readText('runs/hostile-forged.json', b.name) !== undefined)
        ? open(`written (${o.report.get('write the journal branch')})`)
        : shut(o.report.get('write the journal branch') ?? 'not tried'),
  },
  {
    attempt: 'create a check run `ci/hostile` with every token found',
    outcome: (o) =>
      [...o.repo.checkRuns.values()].some((c) => c.name === 'ci/hostile')
        ? open(`created (${o.report.get('create a check run')})`)
        : shut(o.report.get('create a check run') ?? 'not tried'),
  },
  {
    attempt: '… and so satisfy `check` evidence for `ci/hostile` (no `app:`)',
    outcome: (o) => {
      // Today's words end "from a GitHub Actions job"; the build before the suite said no more than this.
      const e = o.evidence.find(
        (x) => x.check.startsWith('check "ci/hostile" on main success') && !x.check.includes(' by '),
      );
      if (!e) return shut('no such check in the journal');
      return e.passed ? open('the evidence check passed') : shut(`the check fails: ${shortUrls(e.observed)}`);
    },
  },
  {
    attempt: '… or `check` evidence that names the app (`app: trusted-ci`)',
    outcome: (o) => {
      const e = o.evidence.find((x) => x.check.endsWith('by trusted-ci'));
      if (!e) return shut('no such check in the graph (the field is new)');
      return e.passed ? open('the evidence check passed') : shut(`the check fails: ${shortUrls(e.observed)}`);
    },
  },
  {
    attempt:
      '`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, `CODEX_API_KEY` from its environment (the step env holds real keys)',
    outcome: modelKey('env model keys'),
  },
  {
    attempt: '`/proc/<key proxy pid>/environ` (the real model keys: the proxy is the action process)',
    outcome: modelKey('/proc/<proxy>/environ'),
  },
  {
    attempt: "`/proc/<key proxy pid>/mem` (the proxy's memory; no Yama here)",
    outcome: modelKey('/proc/<proxy>/mem'),
  },
  {
    attempt: 'a model key in a file it can read (its home, the workspace, its `$TMPDIR`, `$RUNNER_TEMP`)',
    outcome: (o) => {
      const r = o.report.get('model key in files') ?? 'not tried';
      return r.startsWith('found') ? open(r) : shut(r === 'none' ? 'nothing there' : r);
    },
  },
  {
    attempt:
      "the proxy's placeholder on another API path (`/v1/models`, `/v1/files`, batches, admin keys, `..`, `%6d`, `GET`)",
    outcome: throughProxy('other API paths', 'other-path'),
  },
  {
    attempt: 'the key proxy without the placeholder (as another local user would: no key, a guessed one)',
    outcome: throughProxy('proxy without the placeholder', 'no-placeholder'),
  },
  {
    attempt:
      "a process that outlives the attempt writes `::set-output` to the action's stdout (`/proc/<pid>/fd/1`)",
    outcome: output('late', 'forged'),
    racy: true,
  },
];

/** The table for docs/RELIABILITY.md: each attempt and its outcome under each setup that ran. */
export function hostileTable(outcomes: {
  recommended: Outcome[];
  plain: Outcome[];
  before: Outcome[];
}): string {
  const cell = (o: Outcome | undefined) =>
    o ? `${o.blocked ? 'blocked' : '**reached**'}: ${o.what.replace(/\|/g, '\\|')}` : 'not run';
  const rows = ATTEMPTS.map(
    (a, i) =>
      `| ${a.attempt} | ${cell(outcomes.recommended[i])} | ${cell(outcomes.plain[i])}${a.racy ? ' (a race)' : ''} | ${cell(outcomes.before[i])} |`,
  );
  const head = "| attempt | recommended setup | plain single-job setup | plain, before this suite's fixes |";
  return [head, '| --- | --- | --- | --- |', ...rows].join('\n');
}
