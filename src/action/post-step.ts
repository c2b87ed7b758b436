import { endAfterStep } from '../os/node-user/node-leftovers.js';
import { processAlive } from '../os/processes.js';
import { removeStaleEgressFolders } from '../os/proxies/egress-proxy.js';
import { plannedFor } from '../protocol/plan-wave.js';
import { recoveryWords } from '../render/recovery-words.js';
import { loadGraphFile } from '../runner/journal-io/graph-file.js';
import { recover } from '../runner/recovery/recover.js';
import { type ActionContext, makeStore } from './context/context.js';
import { subjectOfLabel } from './context/subject.js';
import { askForAttention } from './report/publish.js';
import { stepSetupFor } from './setup.js';

/**
 * Runs after the job's steps, even when the main step was cancelled or killed. Ends every process of the node
 * user the main step left (src/os/node-user/node-leftovers.ts). If the main step did not finish
 * and its node is still in flight under this job, the executor is certainly gone: record NodeInterrupted now,
 * rather than wait for the next run's recovery to ask the API.
 */
export async function postStep(ctx: ActionContext): Promise<void> {
  // A main step killed mid-node leaves its egress proxy's folder (its sockets answer nobody): removed here.
  removeStaleEgressFolders(processAlive);
  const state = (name: string) => ctx.rawEnv[`STATE_${name}`] ?? '';
  // What of the node user outlived the main step (a process that ignored the cancel, or the runner's KILL).
  const ended = await endAfterStep(state('node-user'));
  if (ended?.words && ended.warn) ctx.io.warning(`interlock post step: ${ended.words}`);
  else if (ended?.words) ctx.io.info(`interlock post step: ${ended.words}`);
  if (state('done') === 'true' || !state('run-id') || ctx.inputs.mode !== 'step') return;
  const runId = state('run-id');
  const graph = { ...loadGraphFile(`${ctx.workspace}/${state('graph')}`), path: state('graph') };
  const subject = subjectOfLabel(state('subject'), state('subject-sha') || undefined);
  const setup = stepSetupFor(ctx, {
    graph,
    runId,
    subject,
    store: makeStore(ctx, runId, subject, graph),
    intent: '',
  });
  const me = ctx.me;
  const ownOnly: typeof setup.probe = (node, d) => {
    const r = d.runner;
    // A plan's dispatch this job took (`claimed`, planned.ts) names no job, but is this job's as well.
    const taken = state('claimed') === `${node}#${d.attempt}` && plannedFor(d, me);
    const mine =
      taken ||
      (r.kind === 'actions' &&
        r.workflow_run_id === me.workflow_run_id &&
        r.run_attempt === me.run_attempt &&
        r.job === me.job &&
        r.runner_name === me.runner_name);
    return mine
      ? {
          gone: true,
          why: 'the main step of this job ended without recording it',
          observed_ms: Math.max(0, Date.now() - Date.parse(d.at)),
        }
      : { gone: false, why: 'dispatched by another job', observed_ms: 0 };
  };
  // Only this job's own attempt: never the API's answer about other jobs (`probes` would be asked first).
  setup.probe = ownOnly;
  setup.probes = () => ownOnly;
  setup.recoveredBy = `interlock post step (workflow run ${me.workflow_run_id} attempt ${me.run_attempt})`;
  const r = await recover(setup);
  const held = r.interrupted.filter((id) => r.cur.state.nodes.get(id)?.state === 'held');
  for (const id of r.interrupted)
    ctx.io.warning(
      `interlock: ${recoveryWords(r.cur.state, id, { how: 'was interrupted when the step stopped' })}`,
    );
  // A held node waits for a person: ask now, not when some later step happens to run.
  if (held.length && subject.number)
    await askForAttention(ctx, { graph: setup.graph, state: r.cur.state }, runId, held, subject.number);
}
