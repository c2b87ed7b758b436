/**
 * Run resolution, the pure part: the intent an event names, whether a given run id is allowed, what a stored
 * journal says when a run is resumed by id, what the routing table answers, and whether the commenter who
 * matched a command route may start a run. No I/O: `resolve-run.ts` gathers the facts and calls these.
 */
import { type AuthFacts, authorize, screenEvent } from '../../approvals/authorization/authorize.js';
import type { Config } from '../../config/schema.js';
import type { Journal } from '../../journal/events/events.js';
import { journalGraphPath } from '../../journal/graph-path.js';
import { runIdProblem } from '../../journal/run-id.js';
import { type Subject, subjectOfLabel } from './subject.js';

/** What a step works on before its graph is loaded. */
export interface RunTarget {
  graphPath: string;
  intent: string;
  subject: Subject;
}

/** The intent of an event: its name, and its action when it has one (`issues.labeled`). */
export function intentOf(eventName: string, payload: Record<string, unknown>): string {
  return `${eventName}${typeof payload.action === 'string' ? `.${payload.action}` : ''}`;
}

/** Why the run-id input is refused, in words for the workflow's author; undefined when it is allowed. */
export function runIdInputProblem(id: string): string | undefined {
  const problem = runIdProblem(id);
  return problem && `run-id "${id}" is not allowed: ${problem}`;
}

/** Whether a step given a run id should read that run's journal to learn its graph and subject. */
export function resumesById(givenRunId: string, target: RunTarget): boolean {
  return givenRunId !== '' && (!target.graphPath || target.subject.kind === 'ref');
}

/** A run resumed by id (after an approval, from a dispatch): the journal names its graph, intent and subject. */
export function resumeFrom(stored: Journal | undefined, target: RunTarget): RunTarget {
  if (!stored) return target;
  const graphPath = target.graphPath || journalGraphPath(stored);
  const started = stored.events[0];
  if (started?.type !== 'RunStarted') return { ...target, graphPath };
  const recorded = subjectOfLabel(started.subject);
  // A label that names no issue or pull request (a ref) keeps the step's own subject.
  return { graphPath, intent: started.intent, subject: recorded.kind === 'ref' ? target.subject : recorded };
}

/** The routing table's answer: the graph and intent, or why nothing runs; `command` when a comment matched. */
export function routeAnswer(
  config: Config | undefined,
  match: { graph: string; intent: string; index: number } | null,
  intent: string,
  configFile: string,
): { noRoute: string } | { graphPath: string; intent: string; command: boolean; route: number } {
  if (!match)
    return {
      noRoute: config
        ? `no route in ${configFile} matches ${intent}; nothing to run`
        : `no graph input and no ${configFile}: set the graph input or add a routes table`,
    };
  return {
    graphPath: match.graph,
    intent: match.intent,
    command: config?.routes[match.index]?.command !== undefined,
    route: match.index,
  };
}

/**
 * Why a route's graph file cannot be used, naming the route and the path, with the line of the config file
 * that names it (the first line naming the path, else the first line).
 */
export function missingRouteGraph(opts: {
  configFile: string;
  configText: string;
  route: number;
  graphPath: string;
  why: string;
}): { file: string; line: number; col: number; message: string } {
  const lines = opts.configText.split('\n');
  const at = lines.findIndex((l) => /^\s*-?\s*graph:/.test(l) && l.includes(opts.graphPath));
  const col = at >= 0 ? lines[at]!.indexOf(opts.graphPath) + 1 : 1;
  return {
    file: opts.configFile,
    line: at >= 0 ? at + 1 : 1,
    col,
    message: `routes[${opts.route}] names the graph ${opts.graphPath}, which cannot be read (${opts.why}): add that file, or fix the route's graph: path (from the repository root)`,
  };
}

/** Who wrote the comment that matched a command route, or why the event names nobody who may start a run. */
export function commenterOf(payload: Record<string, unknown>): { login: string } | { refused: string } {
  const p = payload as {
    action?: string;
    sender?: { login: string; type?: string };
    comment?: { user?: { login: string; type?: string } | null };
  };
  const author = p.comment?.user ?? p.sender;
  if (!author || !p.sender) return { refused: 'the event names no commenter' };
  const screen = screenEvent({ action: p.action ?? '', sender: p.sender, author });
  return screen.ok ? { login: author.login } : { refused: screen.why };
}

/**
 * A comment is anyone's to write: a run started by a slash command needs the same people an approval does
 * (approvals.permission, or approvals.approvers), else anyone could start an agent with the secrets.
 */
export function startRefusal(config: Config, facts: AuthFacts): string | undefined {
  const auth = authorize(config.approvals, 'command', facts);
  return auth.ok
    ? undefined
    : auth.reason.replace('this command needs', 'starting a run from a comment needs');
}
