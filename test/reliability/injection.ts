/**
 * Injection: attacker-controlled text (an issue title, a comment body, a branch name, an input) carrying
 * `$(…)`, backticks, `${{ }}`, newlines, quotes and workflow commands flows through every path that reaches a
 * node: env, the prompt on stdin, node outputs into the next node's env, evidence patterns, conditions, the
 * run id, the progress comment, the step's outputs. Each payload plants a canary command (`touch <file>`);
 * none may ever run, and every value must arrive byte for byte, never evaluated.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, Sandbox } from '../crash/harness.js';
import { runStep, type StepOptions, type StepResult } from '../support/action-process.js';
import { ORDER_CLOCK } from '../support/clock.js';
import { webhookExample } from '../support/fixtures.js';
import { APPROVER, FULL, OWNER, REPO, startActionWorld, workspace } from './github-world.js';
import { killTagged, Problems } from './support.js';

/** Payloads that would each create a canary file if any shell, evaluator or template ever ran them. */
export function payloads(dir: string): Record<string, string> {
  const c = (n: string) => join(dir, `canary-${n}`);
  return {
    'command substitution': `$(touch ${c('subst')})`,
    backticks: `\`touch ${c('backtick')}\``,
    'expression ${{ }}': `\${{ github.token }} \${{ 1 + 1 }} \${{ format('{0}', 'x') }}`,
    'expression closing early': `}} \${{ '$(touch ${c('expr')})' }}`,
    'single quote break-out': `'; touch ${c('squote')}; echo '`,
    'double quote break-out': `"; touch ${c('dquote')}; echo "`,
    'newline then command': `title\ntouch ${c('newline')}\n`,
    'carriage return': `title\r\ntouch ${c('crlf')}`,
    'pipe and and': `x | touch ${c('pipe')} && touch ${c('and')}`,
    'IFS without spaces': `$(touch\${IFS}${c('ifs')})`,
    'workflow command': `\n::error::forged annotation\n::set-output name=status::forged\n::add-mask::x`,
    'output forgery': `x\nstatus=forged\nstatus<<EOF\nforged\nEOF`,
    'process substitution': `<(touch ${c('procsub')})`,
    'arithmetic expansion': `$((\`touch ${c('arith')}\`))`,
    'regex metacharacters': `(a+)+$ [^x] .* \\1 (?<n>x)`,
    'markdown and mentions': `@everyone <img src=x onerror=alert(1)> [x](javascript:alert(1)) \`\`\` <!-- x`,
  };
}

/** A git branch name cannot hold spaces or newlines, but it can hold `$(`, backticks and `${IFS}`. */
export function branchPayload(dir: string): string {
  return `fix-$(touch\${IFS}${join(dir, 'canary-branch')})-\`touch\${IFS}${join(dir, 'canary-branch2')}\``;
}

function canaries(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.startsWith('canary-'));
}

/**
 * The graph every face runs. `title` comes from the event (or an input), and reaches: env (a), the prompt on
 * stdin (p), an output read by the next node's env (b), a condition (c), evidence patterns on a file and an
 * output (a), a git branch evidence check (g), and the outputs the Action reports.
 */
export const INJECTION_GRAPH = (from: string) => `interlock: 1
name: inject
defaults:
  agent: cat > prompt.txt
nodes:
  - id: a
    replay: safe
    env:
      T: \${{ ${from} }}
    run: |
      printf '%s' "$T" > env.txt
      { printf 'title<<INTERLOCK_EOF_7f3a\\n%s\\nINTERLOCK_EOF_7f3a\\n' "$T"; } >> "$INTERLOCK_OUTPUT"
    outputs: [title]
    validates:
      - file: env.txt
      - output: title
  - id: p
    replay: safe
    depends_on: [a]
    prompt: "Title: \${{ ${from} }} / output: \${{ nodes.a.outputs.title }}"
  - id: b
    replay: safe
    depends_on: [a]
    env:
      OUT: \${{ nodes.a.outputs.title }}
      JOINED: \${{ format('{0}|{1}', nodes.a.outputs.title, ${from}) }}
    run: |
      printf '%s' "$OUT" > output.txt
      printf '%s' "$JOINED" > joined.txt
  - id: c
    replay: safe
    depends_on: [b]
    execute_conditions: ["contains(nodes.a.outputs.title, 'never-in-a-title-9c1')"]
    run: touch condition-ran
  - id: d
    replay: safe
    depends_on: [c]
    validates:
      - file: env.txt
        contains: "\${{ nodes.a.outputs.title }}"
    run: "true"
    retry:
      - run: "true"
      - run: ":"
`;

export interface InjectionResult {
  face: string;
  payload: string;
  /** Paths the payload went through, each checked. */
  paths: string[];
  canaries: string[];
  problems: string[];
}

/** The run's journal events of one type, from its file. */
function journalOf(text: string | undefined): Array<Record<string, unknown>> {
  if (!text) return [];
  return (JSON.parse(text) as { events: Array<Record<string, unknown>> }).events;
}

/** Checks the files the nodes wrote: every value arrived exactly, nothing ran that should not have. */
function checkFiles(p: Problems, dir: string, value: string, paths: string[]): void {
  const read = (f: string) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : undefined);
  p.check(read('env.txt') === value, () => `env: the node saw ${JSON.stringify(read('env.txt'))}`);
  paths.push('env');
  const prompt = read('prompt.txt') ?? '';
  p.check(
    prompt.startsWith(`Title: ${value} / output: ${value}\n`),
    () => `prompt on stdin: ${JSON.stringify(prompt.slice(0, 200))}`,
  );
  paths.push('prompt (stdin)', 'output into a prompt');
  p.check(
    read('output.txt') === value,
    () => `output → env: the next node saw ${JSON.stringify(read('output.txt'))}`,
  );
  paths.push('node output → next env');
  p.check(
    read('joined.txt') === `${value}|${value}`,
    () => `format(): ${JSON.stringify(read('joined.txt'))}`,
  );
  paths.push('expression function over untrusted text');
  p.check(!existsSync(join(dir, 'condition-ran')), 'a condition over the untrusted text came out true');
  paths.push('condition');
  paths.push('evidence patterns (file contains, output)');
}

// --- the CLI ------------------------------------------------------------------------------------------------

/** One payload through the CLI: as an input, and as an issue title in an event file. */
export async function cliInjection(name: string, make: (dir: string) => string): Promise<InjectionResult> {
  const canaryDir = mkdtempSync(join(tmpdir(), 'interlock-canary-'));
  const value = make(canaryDir);
  const p = new Problems();
  const paths: string[] = [];
  const sb = new Sandbox('interlock-inject-cli-');
  try {
    for (const [how, from] of [
      ['input', 'inputs.title'],
      ['event', 'github.event.issue.title'],
    ] as const) {
      const dir = join(sb.dir, how);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'g.yml'), INJECTION_GRAPH(from));
      const event = webhookExample('issues', 'labeled') as { issue: Record<string, unknown> };
      event.issue.title = value;
      writeFileSync(join(dir, 'event.json'), JSON.stringify(event));
      const args =
        how === 'input'
          ? ['run', 'g.yml', '--all', '--quiet', '--input', `title=${value}`]
          : ['run', 'g.yml', '--all', '--quiet', '--event', 'event.json'];
      const run = await runCliIn(sb, dir, args);
      // d's evidence uses the text as a pattern: it matches, or the attempt fails and the node escalates (3).
      p.check(
        run.code === 0 || run.code === 3,
        () => `${how}: run --all exited ${run.code}: ${run.stderr.slice(-400)}`,
      );
      checkFiles(p, dir, value, paths);
      const journal = readFileSync(join(dir, '.interlock/runs/inject.json'), 'utf8');
      p.check(
        journal.includes(JSON.stringify(value).slice(1, -1)),
        `${how}: the journal does not hold the value as data`,
      );
      paths.push(`${how} → journal`);
    }
    // A run id made of the payload is refused before anything runs.
    const bad = await runCliIn(sb, join(sb.dir, 'input'), ['run', 'g.yml', '--run-id', value, '--quiet']);
    p.check(bad.code === 2, `a run id made of the payload was not refused (exit ${bad.code})`);
    paths.push('run id');
    const left = canaries(canaryDir);
    p.check(left.length === 0, `canaries planted by the payload ran: ${left.join(', ')}`);
    return { face: 'CLI', payload: name, paths: [...new Set(paths)], canaries: left, problems: p.list };
  } finally {
    await sb.cleanup();
    rmSync(canaryDir, { recursive: true, force: true });
  }
}

async function runCliIn(sb: Sandbox, cwd: string, args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: sb.dir, INTERLOCK_TEST_TAG: sb.tag },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// --- the Action -------------------------------------------------------------------------------------------

/**
 * One payload through the bundled Action: as the issue title of a labelled issue (env, prompt, outputs,
 * evidence, the progress comment, the step's outputs and log), as a comment body (`/settle … <payload>`,
 * `/fail-run <payload>`), as a pull request's branch name, and as a run id.
 */
export async function actionInjection(name: string, make: (dir: string) => string): Promise<InjectionResult> {
  // A short name: every payload names this folder, and all of them at once must fit a /settle note (1,000
  // characters) under the test run's own TMPDIR (test/support/temp-root.ts).
  const canaryDir = mkdtempSync(join(tmpdir(), 'c-'));
  const value = make(canaryDir);
  const p = new Problems();
  const paths: string[] = [];
  const graphPath = '.github/interlock/inject.yml';
  const graph = INJECTION_GRAPH('github.event.issue.title');
  // On the order clock (test/support/clock.ts): what is checked is that no payload runs, not GitHub's timing.
  const world = await startActionWorld({
    files: { [graphPath]: graph },
    likeGitHub: { secondaryLimit: false, ...ORDER_CLOCK },
  });
  const root = mkdtempSync(join(tmpdir(), 'interlock-inject-action-'));
  const tag = randomUUID();
  const env = { INTERLOCK_TEST_TAG: tag, TMPDIR: root };
  try {
    const issue = world.issue(value);
    const ws = workspace(root, { [graphPath]: graph });
    const step = (extra: Partial<StepOptions> = {}) =>
      runStep({
        ...world.step(ws, issue, { inputs: { graph: graphPath, node: 'all', 'on-held': 'succeed' }, env }),
        ...extra,
      });
    const r = await step();
    p.check(r.code === 0, () => `the step exited ${r.code}: ${r.stdout.slice(-600)}`);
    checkFiles(p, ws, value, paths);
    checkStepOutput(p, r, value, paths);
    const runId = `inject/issue-${issue}`;
    const journal = world.journalText(runId);
    p.check(
      journal?.includes(JSON.stringify(value).slice(1, -1)) ?? false,
      'the journal does not hold the title as data',
    );
    paths.push('issue title → journal (RunStarted github context)');
    const progress = world.repo.commentsOn(issue).find((c) => c.body.includes('<!-- interlock:progress'));
    p.check(progress !== undefined, 'no progress comment');
    paths.push('progress comment');

    // Comment bodies: a person settles a node and ends a run with the payload as the note and the reason.
    const held = world.issue('held');
    const heldRun = `inject/issue-${held}`;
    const ws2 = workspace(root, {
      [graphPath]: graph.replace('replay: safe\n    env:\n      T:', 'replay: never\n    env:\n      T:'),
    });
    const crashed = await runStep({
      ...world.step(ws2, held, {
        inputs: { graph: graphPath, node: 'a' },
        env: { ...env, INTERLOCK_FAILPOINTS: 'after-command@a' },
      }),
    });
    p.check(crashed.signal === 'SIGKILL', 'the setup crash did not happen');
    for (const run of world.repo.workflowRuns.values()) world.endJob(run.id);
    const graph2 = readFileSync(join(ws2, graphPath), 'utf8');
    world.commit({ [graphPath]: graph2 });
    await runStep({ ...world.step(ws2, held, { inputs: { graph: graphPath, mode: 'recover' }, env }) });
    for (const [what, body] of [
      ['comment body → /settle note', `/settle a ${value.replace(/[\r\n]+/g, ' ')}`],
      ['comment body → /fail-run reason', `/fail-run ${value.replace(/[\r\n]+/g, ' ')}`],
      ['comment body → not a command', `${value}\n\nthanks`],
    ] as const) {
      const c = await runStep({
        apiUrl: world.server.url,
        repository: FULL,
        workspace: ws2,
        eventName: 'issue_comment',
        payload: world.comment(held, body, APPROVER),
        inputs: { mode: 'comment' },
        job: world.job(),
        env,
      });
      p.check(c.code === 0, () => `${what}: mode: comment exited ${c.code}: ${c.stdout.slice(-400)}`);
      checkNoForgedCommands(p, c.stdout, what);
      paths.push(what);
    }
    // A later step reads the journal that holds the note and the reason, and shows them.
    const after = await runStep({
      ...world.step(ws2, held, { inputs: { graph: graphPath, node: 'all' }, env }),
    });
    checkNoForgedCommands(p, after.stdout, 'a step after the settlement');
    const events = journalOf(world.journalText(heldRun));
    p.check(
      events.some((e) => e.type === 'NodeRecorded' && e.note !== undefined),
      'the settlement with the payload as its note was not recorded',
    );
    p.check(
      events.some((e) => e.type === 'RunFailed'),
      'the /fail-run with the payload as its reason was not recorded',
    );

    // A branch name: a pull request whose head ref carries the payload, and a push to such a branch.
    const branch = branchPayload(canaryDir);
    const prGraph = graph.replaceAll('github.event.issue.title', 'github.event.pull_request.head.ref');
    const ws3 = workspace(root, { [graphPath]: prGraph });
    const pr = webhookExample('pull_request', 'opened') as {
      number: number;
      pull_request: Record<string, unknown> & { head: Record<string, unknown> };
      repository: Record<string, unknown>;
    };
    const number = world.issue('pr');
    pr.number = number;
    pr.pull_request = { ...pr.pull_request, number, head: { ...pr.pull_request.head, ref: branch } };
    pr.repository = { ...pr.repository, name: REPO, full_name: FULL, owner: { login: OWNER } };
    const prStep = await runStep({
      ...world.step(ws3, number, { inputs: { graph: graphPath, node: 'all', 'on-held': 'succeed' }, env }),
      eventName: 'pull_request',
      payload: pr as unknown as Record<string, unknown>,
    });
    p.check(
      prStep.code === 0,
      () => `the pull_request step exited ${prStep.code}: ${prStep.stdout.slice(-400)}`,
    );
    checkFiles(p, ws3, branch, []);
    checkNoForgedCommands(p, prStep.stdout, 'pull request branch');
    paths.push('branch name (pull_request head ref)');
    const push = await runStep({
      ...world.step(ws3, number, { inputs: { graph: graphPath, node: 'next' }, env }),
      eventName: 'push',
      payload: { ref: `refs/heads/${branch}` },
    });
    p.check(push.code === 0, () => `the push step exited ${push.code}: ${push.stdout.slice(-400)}`);
    p.check(
      /^inject\/[A-Za-z0-9._-]+$/.test(push.outputs['run-id'] ?? ''),
      `the run id from a branch name is ${JSON.stringify(push.outputs['run-id'])}`,
    );
    paths.push('branch name → run id');

    // A run id given as input (workflow_dispatch inputs are attacker-reachable): refused before anything runs.
    const bad = await step({ inputs: { graph: graphPath, 'run-id': `x/${value}` } });
    p.check(
      bad.code === 1 && /run-id .* is not allowed: /.test(bad.stdout),
      'a run-id input made of the payload was not refused',
    );
    paths.push('run-id input');

    // What interlock posts quotes the text but never mentions anyone the payload names.
    for (const n of [issue, held, number])
      for (const c of world.repo.commentsOn(n))
        if (c.user !== APPROVER)
          p.check(
            !/@everyone/.test(c.body),
            () => `a comment by ${c.user} mentions @everyone: ${c.body.slice(0, 200)}`,
          );
    paths.push('comments interlock posts (progress, attention, replies)');
    const left = canaries(canaryDir);
    p.check(left.length === 0, `canaries planted by the payload ran: ${left.join(', ')}`);
    return { face: 'Action', payload: name, paths: [...new Set(paths)], canaries: left, problems: p.list };
  } finally {
    await killTagged(tag);
    await world.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(canaryDir, { recursive: true, force: true });
  }
}

/** The step's outputs hold the value in one output, never a forged one; its log forges no workflow command. */
function checkStepOutput(p: Problems, r: StepResult, value: string, paths: string[]): void {
  p.check(r.outputs.status !== 'forged', 'a step output was forged by the payload');
  p.check(
    ['completed', 'run-completed', 'escalated'].includes(r.outputs.status ?? ''),
    `status output ${r.outputs.status}`,
  );
  paths.push('step outputs (GITHUB_OUTPUT)');
  checkNoForgedCommands(p, r.stdout, 'issue title');
  paths.push('step log (workflow commands)');
  void value;
}

/** No line of the step's log is a workflow command that the payload wrote. */
function checkNoForgedCommands(p: Problems, log: string, where: string): void {
  const forged = log
    .split('\n')
    .filter((l) => /^\s*::(error::forged annotation|set-output name=status::forged|add-mask::x)/.test(l));
  p.check(
    forged.length === 0,
    () => `${where}: the payload forged workflow commands in the log: ${forged.join(' | ')}`,
  );
}
