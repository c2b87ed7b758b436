/**
 * Run resolution, the shell: reads the stored journal (a run resumed by id), the routing table and the
 * commenter's permission, asks `run-plan.ts` what they mean, and loads the graph.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { gatherAuthFacts } from '../../approvals/authorization/permission.js';
import { CONFIG_PATH } from '../../config/load.js';
import { route } from '../../config/route.js';
import type { Config } from '../../config/schema.js';
import { grantsMisfit } from '../../graph/credential-grants.js';
import { GraphError } from '../../graph/errors.js';
import type { Graph } from '../../graph/model.js';
import { defaultRunId, previousRunId } from '../../journal/run-id.js';
import { parseNodeCredentials } from '../../os/node-user/node-credentials.js';
import { confineToWorkspace } from '../../os/workspace-path.js';
import { loadGraphFile } from '../../runner/journal-io/graph-file.js';
import { RunLost } from '../../store/check-run-find.js';
import type { JournalStore } from '../../store/types.js';
import { type ActionContext, makeStore } from './context.js';
import { resumeLookup, withPullHead } from './pull-head.js';
import {
  commenterOf,
  intentOf,
  missingRouteGraph,
  type RunTarget,
  resumeFrom,
  resumesById,
  routeAnswer,
  runIdInputProblem,
  startRefusal,
} from './run-plan.js';
import { type Subject, subjectOf } from './subject.js';

export interface ResolvedRun {
  graph: Graph;
  runId: string;
  subject: Subject;
  store: JournalStore;
  intent: string;
}

/**
 * Why the comment that matched a command route may not start a run, or undefined when it may; `commenter` when
 * a person was refused for permission (they get a reply; a bot or an edit does not).
 */
async function refuseCommenter(
  ctx: ActionContext,
  config: Config,
): Promise<{ refused: string; commenter?: string } | undefined> {
  const who = commenterOf(ctx.payload);
  if ('refused' in who) return { refused: who.refused };
  const why = startRefusal(config, await gatherAuthFacts(ctx, config.approvals, 'command', who.login));
  return why ? { refused: why, commenter: who.login } : undefined;
}

/** A route whose graph file is missing is reported on the route, in the config file, not as a bare ENOENT. */
async function checkRouteGraph(
  ctx: ActionContext,
  answer: { graphPath: string; route: number },
): Promise<void> {
  const path = resolve(ctx.workspace, answer.graphPath);
  if (existsSync(path)) return;
  const configText = (await ctx.config.checkout.text()) ?? '';
  const why = 'no such file';
  const err = missingRouteGraph({
    configFile: CONFIG_PATH,
    configText,
    route: answer.route,
    graphPath: answer.graphPath,
    why,
  });
  throw new GraphError([err]);
}

/** What a dispatch that names a run which has no journal (and no graph to start it with) is told. */
function noJournalToResume(runId: string, where: Subject, ctx: ActionContext): string {
  const store = makeStore(ctx, runId, where).location;
  return `run-id "${runId}": no journal at ${store} to resume, and no graph input to start it with: check the run id, or give the graph input (graph: .github/interlock/<graph>.yml) to start run "${runId}" afresh`;
}

const unlessLost = (e: unknown): null => {
  if (e instanceof RunLost) return null;
  throw e;
};

/** The graph, run id, subject and store this step works on; or why there is none. */
export async function resolveRun(
  ctx: ActionContext,
): Promise<ResolvedRun | { noRoute: string } | { refused: string; commenter?: string }> {
  let target: RunTarget = {
    graphPath: ctx.inputs.graph,
    intent: intentOf(ctx.env.GITHUB_EVENT_NAME, ctx.payload),
    subject: subjectOf(ctx.payload, ctx.env.GITHUB_REF),
  };
  const givenRunId = ctx.inputs['run-id'];
  const problem = givenRunId ? runIdInputProblem(givenRunId) : undefined;
  if (problem) throw new Error(problem);
  // Resuming a run by id (e.g. dispatched after an approval, with no subject): the journal names its graph and subject.
  let missing: string | undefined;
  if (resumesById(givenRunId, target)) {
    const where = await resumeLookup(ctx, givenRunId, target.subject);
    const stored = await makeStore(ctx, givenRunId, where).read();
    // A new id for the same subject (`<name>/issue-<n>-2`) starts afresh from the run before it.
    const before = stored ? undefined : previousRunId(givenRunId);
    // The run before it may be lost (a force-push took its check run away): starting afresh is the way out of that.
    const earlier = before ? await makeStore(ctx, before, where).read().catch(unlessLost) : null;
    target = resumeFrom((stored ?? earlier)?.journal, target);
    if (!stored && !earlier) missing = noJournalToResume(givenRunId, where, ctx);
    if (!stored && !earlier && before && where.kind === 'pr') target = { ...target, subject: where };
    target = { ...target, subject: await withPullHead(ctx, target.subject) };
  }
  if (!target.graphPath) {
    const config = await ctx.config.checkout.file();
    const match = config ? route(config, { name: ctx.env.GITHUB_EVENT_NAME, payload: ctx.payload }) : null;
    const answer = routeAnswer(config, match, target.intent, CONFIG_PATH);
    // A run named by id that has no journal is no routing question: say what is missing instead.
    if ('noRoute' in answer && missing) throw new Error(missing);
    if ('noRoute' in answer) return answer;
    target = { ...target, graphPath: answer.graphPath, intent: answer.intent };
    await checkRouteGraph(ctx, answer);
    if (answer.command && config) {
      const refused = await refuseCommenter(ctx, config);
      if (refused) return refused;
    }
  }
  const { graphPath, subject, intent } = target;
  const graph = {
    ...loadGraphFile(confineToWorkspace(ctx.workspace, graphPath, 'graph path')),
    path: graphPath,
  };
  const misfit = grantsMisfit(
    parseNodeCredentials(ctx.inputs['node-credentials']),
    graph.nodes.map((n) => n.id),
  );
  if (misfit) throw new Error(`${misfit} (${graphPath})`);
  const runId = givenRunId || defaultRunId(graph.name, subject.label);
  return { graph, runId, subject, store: makeStore(ctx, runId, subject, graph), intent };
}
