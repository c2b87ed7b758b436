import { setTimeout as sleep } from 'node:timers/promises';
import { isOwnComment } from '../../github/own-comment.js';
import { parseSubjectLabel } from '../../journal/run-id.js';
import { parseDuration, stuckRuns } from '../../journal/stuck.js';
import { approveRerunCommand } from '../../render/next-commands.js';
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
  const files = await readJournals(catalog, runs);
  // First the runs whose runner was lost: recorded now, they are active again, not idle.
  const lost = await recoverLostRunners(ctx, files);
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
    const again = await readJournals(
      catalog,
      ((await catalog.listRuns()) ?? []).filter((r) => idle.has(r.runId)),
    );
    found = stuckRuns(again, Date.now(), threshold);
  }
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
    await ctx.octokit.rest.issues.createComment({
      ...ctx.repo,
      issue_number,
      body: `${mark}\n⏳ **interlock: run \`${s.run_id}\` has had no activity for ${s.idle}.** Its last event was ${s.last_event} at ${s.last_activity_at}. It may wait for a person (\`/approve-rerun\`, \`/settle\`, \`/fail-run\`), or for a workflow to run its next node.`,
    });
  }
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
