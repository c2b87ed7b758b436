import { setTimeout as sleep } from 'node:timers/promises';
import { isOwnComment } from '../../github/own-comment.js';
import type { Graph } from '../../graph/model.js';
import { fold } from '../../journal/fold.js';
import { journalGraphPath } from '../../journal/graph-path.js';
import { parseJournal } from '../../journal/parse.js';
import { parseSubjectLabel } from '../../journal/run-id.js';
import { parseDuration, stuckRuns } from '../../journal/stuck.js';
import { throughDoor } from '../../render/door.js';
import { approveRerunCommand } from '../../render/next-commands.js';
import { waitingRows } from '../../render/page/waiting-model.js';
import { GitRuns } from '../../store/git-runs.js';
import type { ListedRun } from '../../store/types.js';
import type { ActionContext, ActionResult } from '../context/context.js';
import { writeOutputs } from '../report/step-report.js';
import { type JournalFile, recoverLostRunners } from './lost-runners.js';

const marker = (runId: string, lastSeq: string) => `<!-- interlock:stuck ${runId} ${lastSeq} -->`;

/** Each listed run's journal as stored, read through the catalogue where the listing saw it. */
async function readJournals(
  catalog: GitRuns,
  runs: ListedRun[],
): Promise<Array<JournalFile & { file: string }>> {
  const files: Array<JournalFile & { file: string }> = [];
  for (const run of runs) {
    const raw = await catalog.readText(run);
    if (raw)
      files.push({
        file: run.where,
        runId: run.runId,
        version: raw.version,
        text: raw.text,
        place: catalog.placeOf(run),
      });
  }
  return files;
}

/**
 * Who a stuck run waits for, one line a node, in the page's words (why, how many of how many approvals, who
 * approved so far: no @, so the notice pings nobody); none when its graph was not read or it waits for nobody.
 */
async function waitLines(
  repo: string,
  file: JournalFile | undefined,
  graphs: Map<string, Promise<Graph>>,
): Promise<string[]> {
  try {
    if (!file) return [];
    const journal = parseJournal(file.text, file.runId);
    const graph = await graphs.get(journalGraphPath(journal));
    if (!graph) return [];
    return waitingRows([{ repo, journal, graph, state: fold(journal, graph) }]).map(
      // A node's name may come from an output (an instance's key): it passes the door.
      (r) =>
        `- ${throughDoor(r.node, 'line', { max: 200 })}: ${r.why}; approved by ${r.approvals.have.join(', ') || 'nobody yet'}`,
    );
  } catch {
    // A journal or graph the fold refuses: the notice says what it can without it.
    return [];
  }
}

/** The notice's words: the run, its idle time and last event, and who it waits for (or what it may wait for). */
function noticeBody(s: ReturnType<typeof stuckRuns>[number], mark: string, waits: string[]): string {
  const head = `${mark}\n⏳ **interlock: run \`${s.run_id}\` has had no activity for ${s.idle}.** Its last event was ${s.last_event} at ${s.last_activity_at}.`;
  if (!waits.length)
    return `${head} It may wait for a person (\`/approve-rerun\`, \`/settle\`, \`/fail-run\`), or for a workflow to run its next node.`;
  return `${head} It waits for people:\n\n${waits.join('\n')}\n\nAnswer with \`/approve\` (a gate), \`/approve-rerun\` or \`/settle\` (a hold or an escalation), or \`/fail-run\`.`;
}

/** Warns of each stuck run, and posts its notice on its subject once per stall. */
async function report(
  ctx: ActionContext,
  found: ReturnType<typeof stuckRuns>,
  files: JournalFile[],
  graphs: Map<string, Promise<Graph>>,
): Promise<void> {
  for (const s of found) {
    ctx.io.warning(
      `interlock: run ${s.run_id} has had no activity for ${s.idle} (last: ${s.last_event} at ${s.last_activity_at})${s.error ? `: ${s.error}` : ''}`,
    );
    const subject = parseSubjectLabel(s.subject ?? '');
    if (!subject) continue;
    const issue_number = subject.number;
    const mark = marker(s.run_id, s.last_activity_at);
    const comments = await ctx.octokit.paginate(ctx.octokit.rest.issues.listComments, {
      ...ctx.repo,
      issue_number,
      per_page: 100,
    });
    if (comments.some((c) => isOwnComment(c, mark))) continue;
    const repo = `${ctx.repo.owner}/${ctx.repo.repo}`;
    const waits = await waitLines(
      repo,
      files.find((f) => f.runId === s.run_id),
      graphs,
    );
    await ctx.octokit.rest.issues.createComment({
      ...ctx.repo,
      issue_number,
      body: noticeBody(s, mark, waits),
    });
  }
}

/**
 * For a scheduled workflow: first records the attempts of runners that were lost (lost-runners.ts), then finds
 * runs on the journal branch with no activity past `stuck-after`, and reports each on its subject once per stall
 * (a marker names the run and its last event), not once per schedule tick.
 */
export async function stuckMode(ctx: ActionContext): Promise<ActionResult> {
  if (ctx.inputs.store !== 'git')
    return {
      outputs: {},
      failed: "mode: stuck reads the git store's journal branch; it cannot list check-run journals",
    };
  const threshold = parseDuration(ctx.inputs['stuck-after']);
  if (threshold === undefined)
    return {
      outputs: {},
      failed: `stuck-after "${ctx.inputs['stuck-after']}" is not a duration such as 90m, 24h or 7d`,
    };
  const branch = ctx.inputs['journal-branch'];
  const catalog = new GitRuns(ctx.octokit, ctx.repo, branch);
  const runs = await catalog.listRuns();
  if (runs === null) {
    ctx.io.info(`interlock: no journal branch ${branch} yet: no runs`);
    return { outputs: writeOutputs(ctx.io, { stuck: '[]' }) };
  }
  let files = await readJournals(catalog, runs);
  // First the runs whose runner was lost: recorded now, they are active again, not idle.
  const graphs = new Map<string, Promise<Graph>>();
  const lost = await recoverLostRunners(ctx, files, graphs);
  const recovered = new Set(lost.map((l) => l.run_id));
  let found = stuckRuns(
    files.filter((f) => !recovered.has(f.runId)),
    Date.now(),
    threshold,
  );
  if (found.length) {
    // GitHub may answer a read by branch name from seconds ago (a run that just moved on would look idle): a run is
    // reported only when a read begun the stale window later still shows it idle (src/journal/freshness.ts).
    await sleep(ctx.tuning.INTERLOCK_STALE_READ_MS);
    const idle = new Set(found.map((s) => s.run_id));
    // Listed again: a listing pins what it saw (a run branch's commit), and the second look is for what is there now.
    files = await readJournals(
      catalog,
      ((await catalog.listRuns()) ?? []).filter((r) => idle.has(r.runId)),
    );
    found = stuckRuns(files, Date.now(), threshold);
  }
  await report(ctx, found, files, graphs);
  const outputs = writeOutputs(ctx.io, { stuck: JSON.stringify(found) });
  const lostLines = lost.map(
    (l) =>
      `- \`${l.run_id}\`: its runner was lost; interrupted ${l.interrupted.map((n) => `\`${n}\``).join(', ')}${l.held.length ? `; held for a person: ${l.held.map((n) => `\`${approveRerunCommand('comment', n, { runId: l.run_id, several: true })}\``).join(', ')}` : ''}`,
  );
  await ctx.io.summary(
    `## interlock · stuck runs\n\n${found.length ? found.map((s) => `- \`${s.run_id}\`: idle ${s.idle}, last ${s.last_event}`).join('\n') : `No run idle for over ${ctx.inputs['stuck-after']}.`}\n${lostLines.length ? `\n### Lost runners\n\n${lostLines.join('\n')}\n` : ''}`,
  );
  return { outputs };
}
