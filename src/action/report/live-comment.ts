/**
 * The agent live in the progress comment (issue 38): while an engine's attempt runs, the run's progress comment
 * carries a short live view under its table, edited at most once per interval (30 s; `INTERLOCK_LIVE_EDIT_SECONDS`
 * sets another, for tests), and the step log a line per step. The final view goes last; the step's own update of
 * the comment then replaces it with the run's state.
 */
import type { Graph } from '../../graph/model.js';
import { liveMarkdown, liveStepLine, liveUsageWords } from '../../render/live/live.js';
import { progressComment } from '../../render/markdown.js';
import { timelineOf } from '../../render/timeline/timeline-of.js';
import type { LiveSink } from '../../runner/attempt/agent-run.js';
import { pacedLive } from '../../runner/attempt/live-pacer.js';
import type { RunSnapshot } from '../../runner/journal-io/read.js';
import type { JournalStore } from '../../store/types.js';
import type { ActionContext } from '../context/context.js';
import { upsertProgress } from './publish.js';

/** The live sink of one attempt: the step log always; the progress comment when the run is about an issue or PR. */
export function liveComment(
  ctx: ActionContext,
  run: { graph: Graph; store: JournalStore; issue: number | undefined },
  cur: RunSnapshot,
): LiveSink {
  const issue = run.issue;
  // What the agent's steps hold passes the door with the step's secrets, as the journal's text does.
  const secrets = ctx.secrets;
  const base = progressComment(run.graph, cur.state, { timeline: timelineOf(cur.journal), secrets });
  // The run's one progress comment, made (and its id stored) by the first edit when no step made it yet.
  let known = cur.journal.progress_comment_id;
  const publish = async (body: string) => {
    if (!issue) return;
    if (known) await ctx.octokit.rest.issues.updateComment({ ...ctx.repo, comment_id: known, body });
    else known = await upsertProgress(ctx, run.store, cur, body, issue);
  };
  const id = issue;
  const paced = pacedLive(
    // The interval between two edits: `INTERLOCK_LIVE_EDIT_SECONDS` (src/os/tuning.ts, default 30 s).
    ctx.tuning.INTERLOCK_LIVE_EDIT_SECONDS * 1000,
    (v) => publish(`${base}\n\n${liveMarkdown(v, secrets)}`),
    (e) =>
      ctx.io.warning(`interlock could not update the progress comment with the agent's steps: ${e.message}`),
  );
  return {
    step: (view, steps) => {
      for (const s of steps) ctx.io.info(`interlock: ${liveStepLine(view.node, s, secrets)}`);
      if (id) paced.push(view);
    },
    end: async (view) => {
      ctx.io.info(
        `interlock: ${view.node} attempt ${view.attempt}: the agent ended, ${liveUsageWords(view)}`,
      );
      if (id) await paced.end(view);
    },
  };
}
