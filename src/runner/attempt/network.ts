/**
 * An attempt's network (issue 27): a node with `network:` runs its command and its `command` checks in a network
 * namespace of their own whose only way out is the egress proxy under the node's `network.allow`, and every request
 * they make is counted for the journal; where no namespace can be made, the node fails before it runs. A node
 * without `network:` keeps the machine's open network, which the step's log says once.
 */
import type { GraphNode } from '../../graph/model.js';
import type { Connection } from '../../journal/events/fields.js';
import type { ScriptNetwork } from '../../os/exec.js';
import { netnsProblem } from '../../os/netns.js';
import { agentCredentialsPorts } from '../../os/node-user/node-credentials.js';
import {
  ConnectionTally,
  connectionWords,
  egressDecision,
  egressPick,
  egressRefusal,
} from '../../protocol/attempt/egress.js';
import type { AttemptOutcome } from '../../protocol/decide.js';

/** What an attempt needs from the step for its network. */
export interface NetworkSetup {
  /** Ports on the host's 127.0.0.1 a namespaced node still reaches, at the same port (the key proxy's). */
  loopbackPorts?: readonly number[];
  /** Progress messages for people (the step log). */
  say?: (message: string) => void;
}

/** An attempt's network: its scripts' egress and what they asked for; or why it cannot have one. */
export type AttemptNetwork =
  | { kind: 'open' }
  | { kind: 'refused'; message: string }
  | { kind: 'namespaced'; scope: ScriptNetwork; connections: () => Connection[] };

/** Steps whose log already said that nodes have the open network (said once per step). */
const saidOpen = new WeakSet<object>();

/** The attempt's network, from its node's `network` (the node's own, or the graph's default). */
export function attemptNetwork(setup: NetworkSetup, saidFor: object, node: GraphNode): AttemptNetwork {
  const allow = node.network?.allow;
  if (!allow) {
    if (!saidOpen.has(saidFor)) {
      saidOpen.add(saidFor);
      setup.say?.(
        `"${node.id}" has no network: in the graph, so its commands have the machine's open network (give nodes network: { allow: [...] } to allow only the hosts they need; see SECURITY.md)`,
      );
    }
    return { kind: 'open' };
  }
  const why = netnsProblem();
  if (why)
    return {
      kind: 'refused',
      message: `node "${node.id}" has network: but no network namespace can be made here (${why}), so it did not run: interlock never runs it on the open network. Run the step as root or as a user with passwordless sudo, or remove network: from the node`,
    };
  const tally = new ConnectionTally();
  const scope: ScriptNetwork = {
    // The key proxy's port always: the engine's API is reachable through it whatever the allowlist says.
    passPorts: [...new Set([...(setup.loopbackPorts ?? []), ...agentCredentialsPorts()])],
    rules: {
      decide: (host, port) => egressDecision(allow, host, port),
      refusal: (host, port) => egressRefusal(node.id, host, port),
      pick: (host, port, addresses) => egressPick(node.id, allow, host, port, addresses),
      record: (host, port, allowed) => tally.add(host, port, allowed),
    },
  };
  return { kind: 'namespaced', scope, connections: () => tally.list() };
}

/** The attempt's connections for its outcome (none for the open network), said in the step log. */
export function connectionsOf(
  setup: NetworkSetup,
  node: string,
  attempt: number,
  network: AttemptNetwork,
): { connections?: Connection[] } {
  if (network.kind !== 'namespaced') return {};
  const list = network.connections();
  setup.say?.(`"${node}" attempt ${attempt} connected through the egress proxy: ${connectionWords(list)}`);
  return { connections: list };
}

/** A node with `network:` where no namespace can be made: failed before it ran, saying why. */
export function refusedNetwork(message: string, started: number): AttemptOutcome {
  return {
    failures: [{ check: 'network', message }],
    evidence: [],
    outputs: {},
    usage: { wall_ms: Date.now() - started },
    connections: [],
  };
}
