/**
 * Carries out a screened command: the repository's configuration, authorization, run lookup, then either the
 * status reply or the person's command applied to its run (applying/apply.ts). Throws only for unexpected API
 * failures.
 */
import type { Config } from '../config/schema.js';
import { formatSourceError, GraphError } from '../graph/errors.js';
import type { Graph } from '../graph/model.js';
import { applyCommand } from './applying/apply.js';
import { authorize, type Need } from './authorization/authorize.js';
import { gatherAuthFacts } from './authorization/permission.js';
import type { Command } from './commands/parse.js';
import type { HandlerDeps } from './deps.js';
import { findRuns } from './lookup/find-runs.js';
import { pickRuns, subjectWord } from './lookup/pick-runs.js';
import { refusedReply, whichRunReply } from './replies/replies.js';
import { type CommandRequest, type Executed, refused } from './request.js';
import { statusCommand } from './status-command.js';

/** Carries out a screened command, from configuration to the reply. */
export async function executeCommand(deps: HandlerDeps, req: CommandRequest): Promise<Executed> {
  const admitted = await admit(deps, req);
  if ('executed' in admitted) return { ...admitted.executed, beforeJournal: true };
  const { config, command } = admitted;
  const found = await findRuns(deps, req.subject, command.runId);
  const pick = pickRuns(command, req.subject, found);
  if (pick.kind === 'refused') return refused(req.login, pick.why, command);
  if (pick.kind === 'which') {
    return {
      outcome: { kind: 'refused', why: `several runs: ${pick.runIds.join(', ')}`, command },
      reply: whichRunReply(req.login, subjectWord(req.subject), command, pick.runIds),
    };
  }
  const graphs = new Map<string, Promise<Graph>>();
  const places = new Map(found.map((f) => [f.runId, f]));
  if (command.kind === 'status') return statusCommand(deps, command, pick.runIds, { graphs, places });
  const runId = pick.runIds[0]!;
  return applyCommand(deps, req, { config, command, runId, mine: pick.mine, graphs, places });
}

/** The configuration and the person's authorization; a command that did not parse is refused after both. */
async function admit(
  deps: HandlerDeps,
  req: CommandRequest,
): Promise<{ config: Config; command: Command } | { executed: Executed }> {
  let config: Config;
  try {
    config = await deps.config.orDefaults();
  } catch (e) {
    if (!(e instanceof GraphError)) throw e;
    const why = `the configuration file is not valid: ${e.errors.map(formatSourceError).join('; ')}`;
    return { executed: { outcome: { kind: 'failed', why }, reply: refusedReply(req.login, why) } };
  }
  const need: Need =
    req.parsed.kind === 'command' && req.parsed.command.kind === 'status' ? 'read' : 'command';
  const auth = authorize(
    config.approvals,
    need,
    await gatherAuthFacts(deps, config.approvals, need, req.login),
  );
  if (!auth.ok) return { executed: refused(req.login, auth.reason) };
  if (req.parsed.kind === 'refused') return { executed: refused(req.login, req.parsed.reason) };
  return { config, command: req.parsed.command };
}
