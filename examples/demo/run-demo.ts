// npm run demo: the whole protocol on this machine, with the real CLI (dist/cli.js) in a temporary folder.
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const GUIDANCE = 'Publish to the staging channel first.';
const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'interlock-demo-'));
copyFileSync(join(here, 'fix-bug.yml'), join(dir, 'fix-bug.yml'));
copyFileSync(join(here, 'fake-agent.sh'), join(dir, 'fake-agent.sh'));
copyFileSync(join(here, 'session.yml'), join(dir, 'session.yml'));

const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const dim = (s: string) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s);
let chapter = 0;
function say(title: string, text?: string) {
  process.stdout.write(`\n${bold(`${++chapter}. ${title}`)}\n`);
  if (text) process.stdout.write(`${text}\n`);
}

function start(args: string[]): { child: ChildProcess; done: Promise<number> } {
  process.stdout.write(dim(`   $ interlock ${args.map((a) => (/\s/.test(a) ? `"${a}"` : a)).join(' ')}\n`));
  const child = spawn(process.execPath, [cli, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const show = (b: Buffer) => {
    for (const line of b.toString('utf8').split('\n'))
      if (line.trim()) process.stdout.write(`     ${line}\n`);
  };
  child.stdout?.on('data', show);
  child.stderr?.on('data', show);
  const done = new Promise<number>((res) =>
    child.on('close', (code, signal) => res(code ?? (signal ? 137 : 1))),
  );
  return { child, done };
}

async function interlock(...args: string[]): Promise<number> {
  const code = await start(args).done;
  process.stdout.write(dim(`   (exit ${code})\n`));
  return code;
}

async function waitFor(file: string) {
  const deadline = Date.now() + 20_000;
  while (!existsSync(join(dir, file))) {
    if (Date.now() > deadline) throw new Error(`demo: ${file} never appeared`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The machine dies: the CLI and the node's command are killed at once, with no chance to write anything. */
async function crash(run: { child: ChildProcess; done: Promise<number> }, node: string) {
  await waitFor(`.started-${node}`);
  run.child.kill('SIGKILL');
  const pid = Number(readFileSync(join(dir, `.pid-${node}`), 'utf8'));
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
  await run.done;
  process.stdout.write(`   ${bold('✝ SIGKILL')}: the runner died while "${node}" was running\n`);
}

async function main() {
  process.stdout.write(
    `${bold('interlock demo')}: a bug-fix pipeline run by the graph, not by the agent.\nworking folder: ${dir}\n`,
  );
  say(
    'Validate the graph',
    'Four nodes: reproduce → implement (an agent) → docs (replay: safe) → publish (approval: before, replay: never).',
  );
  await interlock('validate', 'fix-bug.yml');

  say(
    'Run it: each node is journaled before it starts and proven by evidence after',
    'The stand-in agent claims success with a wrong fix twice; the evidence check says no. Attempt 3 must use a\ndifferent approach (retry[1]), and that one passes. Then "docs" starts, and we kill the machine mid-node.',
  );
  writeFileSync(join(dir, '.slow-docs'), '');
  await crash(start(['run', 'fix-bug.yml', '--all']), 'docs');

  say(
    'Run again: recovery finds "docs" interrupted; it is replay: safe, so it simply runs again',
    'Then the run stops before "publish": it has approval: before, so it waits for a person. No process waits.',
  );
  await interlock('run', 'fix-bug.yml', '--all');

  say(
    'A person decides before the risky step: alice approves "publish", with a line of guidance for it',
    'The guidance is recorded with her approval and given to the node as data, never run.',
  );
  await interlock('approve', 'publish', '--by', 'alice', '--guidance', GUIDANCE);

  say('Run again: "publish" starts with the guidance in its context, and the machine dies mid-publish');
  writeFileSync(join(dir, '.slow-publish'), '');
  await crash(start(['run', 'fix-bug.yml', '--all']), 'publish');
  const context = JSON.parse(readFileSync(join(dir, 'publish-context.json'), 'utf8')) as {
    guidance?: Array<{ by: string; text: string }>;
  };
  for (const g of context.guidance ?? [])
    process.stdout.write(`   $INTERLOCK_CONTEXT gave "publish" the guidance from ${g.by}: ${g.text}\n`);

  say('Run again: "publish" is replay: never, so it is held — nothing runs it again on its own');
  await interlock('run', 'fix-bug.yml');
  await interlock('status', '--run-id', 'fix-bug');
  const published = existsSync(join(dir, 'published.log'))
    ? readFileSync(join(dir, 'published.log'), 'utf8').trim()
    : '';
  process.stdout.write(
    `   published.log: ${published ? published : '(empty: the interrupted attempt never published)'}\n`,
  );

  say('A person decides: alice checked that nothing was published, and approves a rerun by name');
  await interlock('approve-rerun', 'publish', '--by', 'alice', '--reason', 'nothing was published');

  say('Run again: the approved attempt publishes exactly once and the run completes');
  await interlock('run', 'fix-bug.yml', '--all');
  await interlock('status', '--run-id', 'fix-bug');
  process.stdout.write(`   published.log: ${readFileSync(join(dir, 'published.log'), 'utf8').trim()}\n`);

  await agents();

  process.stdout.write(
    `\n${bold('Where to look')}\n` +
      `   journal (every event, in order):  ${join(dir, '.interlock/runs/fix-bug.json')}\n` +
      `   each attempt's output:            ${join(dir, '.interlock/runs/fix-bug.logs/')}\n` +
      `   the checkpoint as JSON:           (cd ${dir} && node ${cli} status --run-id fix-bug --json)\n` +
      `   the graph as a diagram:           (cd ${dir} && node ${cli} status --run-id fix-bug --mermaid)\n`,
  );
}

/** The agent's side: the task envelope it is told, and one session across two nodes. */
async function agents() {
  say(
    'What the agent was told: the task envelope of "implement" attempt 3',
    'interlock appends it to every prompt (and gives it as data in $INTERLOCK_CONTEXT): the checks it will run,\nthe failures of the attempt before, what earlier nodes produced.',
  );
  const prompt = readFileSync(join(dir, '.prompt-implement-3.txt'), 'utf8');
  const envelope = prompt.slice(prompt.indexOf('---'));
  for (const line of envelope.trimEnd().split('\n')) process.stdout.write(`   │ ${line}\n`);

  say(
    'One session across nodes: "plan" and "write" share `session: notes`',
    'With an engine (here a stand-in that prints what Claude Code prints), "write" resumes the session "plan" left.',
  );
  await interlock('run', 'session.yml', '--all');
  const journal = JSON.parse(readFileSync(join(dir, '.interlock/runs/release-notes.json'), 'utf8')) as {
    events: Array<{ type: string; node?: string; session_id?: string; resumed_session?: string }>;
  };
  for (const e of journal.events)
    if (e.type === 'NodeRecorded')
      process.stdout.write(
        `   "${e.node}" recorded session ${e.session_id}${e.resumed_session ? `, having resumed ${e.resumed_session} (--resume)` : ''}\n`,
      );
}

main().catch((e: unknown) => {
  process.stderr.write(`demo failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
