// npm run demo: the whole product on this machine. GitHub is SIMULATED by a local server that answers as GitHub's
// REST API does (test/support/github-server.ts); the Action runs as a runner runs it (node dist/index.js with
// the runner's environment), and the approval app is a real HTTP server receiving signed webhooks. The stage is
// set in demo-github.ts; this file tells the story, one chapter a function.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJournal } from '../../src/journal/parse.js';
import { CANNOT_SWITCH, canSwitchUser } from '../../src/os/node-user/node-user.js';
import { issuesLabeled } from '../../test/support/fixtures.js';
import { journalText as journalTextIn } from '../../test/support/journal-text.js';
import {
  bold,
  crash,
  dim,
  ISSUE,
  OWNER,
  quote,
  REPO,
  type Stage,
  say,
  startStage,
  type WorkflowRun,
} from './demo-github.js';

let chapter = 0;
const title = (s: string) => say(`\n${bold(`${++chapter}. ${s}`)}`);
const GUIDANCE = 'Publish to the staging channel first; the release notes are in CHANGELOG.md.';
const labeled = issuesLabeled(OWNER, REPO, ISSUE, 'agent:fix', 'add(2, 2) returns 5');

/** The comments on the issue that appeared while `act` ran. */
async function newComments(stage: Stage, act: () => Promise<unknown>): Promise<string[]> {
  const before = stage.repo.commentsOn(ISSUE).length;
  await act();
  return stage.repo
    .commentsOn(ISSUE)
    .slice(before)
    .map((c) => c.body);
}

/**
 * A command comment delivered to the App, and the App's reply. The App answers a delivery once it has handled
 * it, or with 202 after 9 s (GitHub waits 10) and goes on handling it: then the reply comes later, and nothing
 * goes on before it (the next workflow run is the one the App dispatches).
 */
async function command(stage: Stage, body: string): Promise<string[]> {
  let status = 0;
  const before = stage.repo.commentsOn(ISSUE).length;
  await newComments(stage, async () => {
    status = await stage.comment(body, 'alice');
  });
  const isReply = (b: string) => b.startsWith('<!-- interlock:reply');
  const replies = () =>
    stage.repo
      .commentsOn(ISSUE)
      .slice(before)
      .map((c) => c.body);
  for (const end = Date.now() + 60_000; !replies().some(isReply) && Date.now() < end; )
    await new Promise((r) => setTimeout(r, 50));
  say(
    dim(
      `   → the app received the signed webhook: HTTP ${status}${status === 202 ? ' (still working after 9 s: its reply came later)' : ''}`,
    ),
  );
  return replies();
}

/** Runs a workflow run to its end and shows how the step ended. */
async function complete(run: WorkflowRun) {
  const r = await run.step.done;
  run.ended(r.code === 0 ? 'success' : 'failure');
  run.show(r);
  return r;
}

async function crashes(stage: Stage): Promise<void> {
  title('A maintainer labels issue #42 "agent:fix"; the route picks the fix-bug graph');
  say(
    '   The stand-in agent claims success with a wrong fix twice; the evidence check says no. Attempt 3 must use a',
  );
  say('   different approach, and passes. Then the runner dies while the docs (replay: safe) are rebuilt.');
  writeFileSync(join(stage.ws, '.slow-docs'), '');
  await crash(stage, stage.workflowRun('issues', labeled, {}), 'docs');
}

async function gate(stage: Stage): Promise<void> {
  title('The next workflow run recovers: GitHub says run #1 has ended, so "docs" was interrupted');
  say(
    '   It is replay: safe, so it runs again. Then the run stops before "publish", which has approval: before:',
  );
  say('   the step ends, no runner waits, and the issue asks for a person.');
  const posted = await newComments(stage, () => complete(stage.workflowRun('issues', labeled, {})));
  say(`   The issue gets the label "${stage.repo.issue(ISSUE)?.labels.join('", "')}" and this comment:`);
  quote(
    posted.find((b) => b.includes('interlock:attention')),
    16,
  );

  title(`alice reads it and comments "/approve publish" with a line of guidance for the node`);
  say(dim(`   │ /approve publish`));
  say(dim(`   │ ${GUIDANCE}`));
  const replies = await command(stage, `/approve publish\n${GUIDANCE}`);
  quote(
    replies.find((b) => b.startsWith('<!-- interlock:reply')),
    4,
  );
}

/** The workflow run the App dispatched, started as GitHub would: `workflow_dispatch` with the run id. */
function dispatched(stage: Stage): WorkflowRun {
  const inputs = (stage.repo.dispatches.at(-1)?.inputs ?? {}) as Record<string, string>;
  const runId = inputs['run-id'];
  if (!runId) throw new Error('demo: the app dispatched no workflow run');
  say(`   The app dispatched the workflow with run-id ${JSON.stringify(runId)}: no runner waited meanwhile.`);
  return stage.workflowRun('workflow_dispatch', { inputs }, { 'run-id': runId });
}

async function publishCrashes(stage: Stage): Promise<void> {
  title('The dispatched workflow run starts "publish", with alice\'s guidance as data, and the runner dies');
  writeFileSync(join(stage.ws, '.slow-publish'), '');
  await crash(stage, dispatched(stage), 'publish');
  const context = JSON.parse(readFileSync(join(stage.ws, 'publish-context.json'), 'utf8')) as {
    guidance?: Array<{ by: string; text: string }>;
  };
  for (const g of context.guidance ?? [])
    say(`   "publish" got in $INTERLOCK_CONTEXT the guidance from ${g.by}: ${JSON.stringify(g.text)}`);
}

async function hold(stage: Stage): Promise<void> {
  title('The next workflow run holds "publish": it may have partly run, so nothing runs it again on its own');
  const posted = await newComments(stage, () => complete(stage.workflowRun('issues', labeled, {})));
  say(
    `   The issue now carries the label "${stage.repo.issue(ISSUE)?.labels.join('", "')}" and this comment:`,
  );
  quote(posted.find((b) => b.includes('interlock:attention')));

  title('alice checks that nothing was published, and comments "/approve-rerun publish"');
  const replies = await command(stage, '/approve-rerun publish');
  quote(
    replies.find((b) => b.startsWith('<!-- interlock:reply')),
    4,
  );
}

async function finish(stage: Stage): Promise<void> {
  title('The dispatched workflow run resumes the run: "publish" runs once more and the run completes');
  await complete(dispatched(stage));
  const journalText = journalTextIn(stage.repo, 'fix-bug/issue-42') ?? '';
  const journal = parseJournal(journalText, 'journal');
  const log = join(stage.ws, 'published.log');
  const published = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
  say(`   published.log: ${published.length} line(s): ${published.join(', ')}`);
  say(`   journal: ${journal.events.length} events, ending with ${journal.events.at(-1)?.type}`);

  const out = join(stage.ws, 'interlock-demo');
  writeFileSync(`${out}-journal.json`, journalText);
  writeFileSync(`${out}-summary.md`, stage.lastSummary());
  const progress = stage.repo.commentsOn(ISSUE).find((c) => c.body.includes('interlock:progress'));
  writeFileSync(`${out}-progress-comment.md`, progress?.body ?? '');
  say(`\n${bold('Where to look')} (finished in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  say(`   the journal (every event, in order):   ${out}-journal.json`);
  say(`   the last step's job summary + diagram: ${out}-summary.md`);
  say(`   the progress comment on issue #42:     ${out}-progress-comment.md`);
  say(`   the CLI on the same protocol, locally: npm run demo:cli`);
  say(`   (left in place for you to read; remove them with: rm -rf ${stage.ws})`);
}

const started = Date.now();

async function main() {
  say(`${bold('interlock demo')}: a bug-fix pipeline on a GitHub repository, label to published fix.`);
  say(
    dim(
      "GitHub is simulated by a local server that answers as GitHub's REST API does; nothing leaves this machine.",
    ),
  );
  // The warning is said only where it will appear: not root and no passwordless sudo (src/os/node-user/node-user.ts).
  if (!canSwitchUser())
    say(
      dim(
        `Steps that run a node warn "isolation: auto: ${CANNOT_SWITCH}, so node commands run as the runner's own user…":\n` +
          "expected here. On GitHub's runners (sudo) node commands run as a user of their own, and it does not appear.",
      ),
    );
  const stage = await startStage();
  try {
    for (const part of [crashes, gate, publishCrashes, hold, finish]) await part(stage);
  } finally {
    await stage.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`demo failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
