// First: before any module builds a schema (src/action/interpreted-schemas.ts).
import './interpreted-schemas.js';
import { killAllChildren } from '../os/exec.js';
import { guardCheckout } from '../os/git/git-guard.js';
import { parseNodeCredentials } from '../os/node-user/node-credentials.js';
import { endOnExit } from '../os/node-user/node-leftovers.js';
import { prepareNodeUser } from '../os/node-user/node-user.js';
import { claimNodeUser } from '../os/node-user/node-user-claim.js';
import type { KeyProxy } from '../os/proxies/key-proxy.js';
import { parseAgentCredentials } from '../os/proxies/key-proxy-rules.js';
import { MIN_SECRET_LENGTH, secretForms } from '../render/redact.js';
import { appendToRunnerFile, command, fileCommand } from './commands.js';
import { type ActionContext, type ActionIO, buildContext } from './context/context.js';
import { checkoutModelPrices } from './context/daily-cap.js';
import { reportRequests, reportStaleReads } from './context/fresh-stores.js';
import { createLogGuard } from './log-guard.js';
import { runAction } from './main.js';
import { reportingIO } from './report/step-report.js';

/** Every line this process writes goes through the guard: text inside stop-commands, commands outside. */
const guard = createLogGuard({ write: (s) => process.stdout.write(s) });
const out = (line: string) => guard.command(line);

/**
 * interlock's own log lines may quote untrusted text (an issue title in a failed check, a comment's note): no
 * line of them may start a workflow command, which the runner reads from any stdout line beginning with `::`.
 */
export function logLine(message: string): string {
  return `${message.replace(/^(\s*)::/gm, '$1:\u200b:')}\n`;
}

/** A group title on one line: a newline in it would end the command. */
function groupTitle(title: string): string {
  return title.replace(/[\r\n]+/g, ' ');
}

/** The runner's interface: workflow commands on stdout and the files the runner names. */
function runnerIO(env: NodeJS.ProcessEnv = process.env): ActionIO {
  const file = (variable: string, text: string) => {
    if (env[variable]) appendToRunnerFile(env, variable, text);
    else out(command('debug', `${variable} is not set; skipped`));
  };
  return {
    setOutput: (n, v) => file('GITHUB_OUTPUT', fileCommand(n, v)),
    summary: async (md) => file('GITHUB_STEP_SUMMARY', `${md}\n`),
    info: (m) => guard.text(logLine(m)),
    notice: (m) => out(command('notice', m)),
    warning: (m) => out(command('warning', m)),
    error: (m, where) => out(command('error', m, where)),
    saveState: (n, v) => file('GITHUB_STATE', fileCommand(n, v)),
    echo: (chunk) => guard.text(chunk),
    // One attempt's log, interlock's lines and the node's output, folds into one group: the group is opened and
    // closed with commands resumed, so the node's stretch of text sits inside it (the guard ends a cut line).
    group: (title) => out(`::group::${groupTitle(title)}\n`),
    endGroup: () => out('::endgroup::\n'),
  };
}

function setFailed(message: string): void {
  out(command('error', message));
  process.exitCode = 1;
}

/**
 * What a node prints reaches the step's log as it is (inside stop-commands): the runner is told to mask each secret
 * a node may be granted (`node-credentials`) or a model key it may be served (`agent-credentials`), before any
 * node runs, in every form the journal removes (as it is, each line of it, its base64 forms), so a node that
 * prints one shows `***` in the log.
 */
function maskSecrets(ctx: ActionContext): void {
  const names = [
    ...parseNodeCredentials(ctx.inputs['node-credentials']).keys(),
    ...parseAgentCredentials(ctx.inputs['agent-credentials']),
  ];
  const values = names.map((n) => ctx.rawEnv[n]).filter((v): v is string => !!v);
  const lines = values.flatMap((v) => v.split(/\r?\n/)).filter((l) => l.length >= MIN_SECRET_LENGTH);
  for (const form of secretForms([...values.filter((v) => !/[\r\n]/.test(v)), ...lines]))
    out(`::add-mask::${form.replace(/%/g, '%25').replace(/\r/g, '%0D')}\n`);
}

/** Graph code runs as a user of its own (SECURITY.md); where it cannot, the step says so loudly. */
async function isolateNodes(ctx: ActionContext): Promise<void> {
  maskSecrets(ctx);
  const user = prepareNodeUser({
    isolation: ctx.inputs.isolation,
    user:
      ctx.inputs.isolation === 'none'
        ? ctx.inputs['node-user']
        : await claimNodeUser(ctx.inputs['node-user']),
    workspace: ctx.workspace,
    warn: (m) => ctx.io.warning(`interlock: ${m}`),
    say: (m) => ctx.io.info(`interlock: ${m}`),
  });
  // For the post step, which ends whatever of this node user outlives the main step (a cancel, a KILL).
  if (user) ctx.io.saveState('node-user', user.name);
  // What git reads and runs from .git/ stays as this job's first interlock step found it (src/os/git/git-guard.ts).
  guardCheckout({
    workspace: ctx.workspace,
    stateDir: ctx.env.RUNNER_TEMP,
    nodeUid: user?.uid,
    warn: (m) => ctx.io.warning(`interlock: ${m}`),
  });
}

/**
 * The model keys `agent-credentials` names are served through the key proxy for this step's life: no node and no
 * check sees them, only a placeholder (SECURITY.md).
 */
async function serveModelKeys(ctx: ActionContext): Promise<KeyProxy | undefined> {
  const names = parseAgentCredentials(ctx.inputs['agent-credentials']);
  // The proxy's code is loaded only by a step that has one of the keys to serve (else it would start nothing).
  if (!names.some((n) => ctx.rawEnv[n])) return undefined;
  const { serveAgentCredentials } = await import('../os/proxies/key-proxy.js');
  const granted = parseNodeCredentials(ctx.inputs['node-credentials']).keys();
  const proxy = await serveAgentCredentials(names, ctx.rawEnv, granted, await checkoutModelPrices(ctx));
  if (proxy)
    ctx.io.info(
      `interlock: ${proxy.withheld.join(', ')} served through the key proxy on 127.0.0.1:${proxy.port}; nodes get a placeholder`,
    );
  return proxy;
}

/** The main step: try/catch and the step's result; no other logic. */
export async function run(): Promise<void> {
  process.once('exit', () => guard.close());
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      killAllChildren('SIGTERM');
      // A node process in a session of its own that ignores TERM is not in any group stopped above.
      const ended = endOnExit(sig);
      if (ended?.words && ended.warn) out(command('warning', `interlock: ${ended.words}`));
      else if (ended?.words) guard.text(logLine(`interlock: ${ended.words}`));
      setFailed(`interlock: ${sig}: the step was cancelled; the post step marks the node interrupted`);
      process.exit(1);
    });
  }
  const report = reportingIO(runnerIO());
  let proxy: KeyProxy | undefined;
  try {
    const ctx = buildContext(process.env, report.io);
    if (ctx.inputs.mode === 'step') {
      await isolateNodes(ctx);
      proxy = await serveModelKeys(ctx);
    }
    const result = await runAction(ctx).finally(() => {
      reportStaleReads(ctx);
      reportRequests(ctx);
    });
    await report.finish({ result });
    // A problem already annotated is not reported a second time as an error: its details go to the log.
    if (result.failed && result.reported) {
      guard.text(logLine(`interlock: ${result.failed}`));
      process.exitCode = 1;
    } else if (result.failed) setFailed(result.failed);
  } catch (e) {
    setFailed(`interlock: ${(e as Error).message}`);
    await report.finish({ error: e as Error }).catch(() => undefined);
  } finally {
    await proxy?.stop();
    // Nothing of the node user lasts past the step: its processes, its home in the password database.
    const ended = endOnExit();
    if (ended?.words && ended.warn) out(command('warning', `interlock: ${ended.words}`));
    else if (ended?.words) guard.text(logLine(`interlock: ${ended.words}`));
  }
}

/** The post step: marks this job's node interrupted when the main step did not finish. */
export async function runPost(): Promise<void> {
  process.once('exit', () => guard.close());
  try {
    const { postStep } = await import('./post-step.js');
    await postStep(buildContext(process.env, runnerIO()));
  } catch (e) {
    out(command('warning', `interlock post step: ${(e as Error).message}`));
  }
}
