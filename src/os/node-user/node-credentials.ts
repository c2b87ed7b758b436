/**
 * Which nodes may receive which secret from the step's environment (the `node-credentials` input). A GitHub token
 * (`GITHUB_TOKEN`, `GH_TOKEN`, ...) is withheld from every node unless granted; any other variable the input
 * names (`NPM_TOKEN=release`) is withheld from every node it does not name. `NAME` alone gives it to every node.
 * Parsed once by the face; the grants travel with the step's setup (`Isolation.credentials`) to every script
 * runScript starts, applied by its INTERLOCK_NODE.
 */

import { MODEL_KEYS, withLoopbackNoProxy } from '../proxies/key-proxy-rules.js';
import type { ProxyTab, TabLimit } from '../proxies/key-proxy-tab.js';

/** Credentials a workflow commonly puts in the step's env; a node gets one only when `node-credentials` grants it. */
export const GITHUB_CREDENTIALS = [
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'GITHUB_ENTERPRISE_TOKEN',
];

/** Credential name to the nodes given it ('all' for every node). */
export type CredentialGrants = Map<string, Set<string> | 'all'>;

const ENTRY = /^([A-Za-z_][A-Za-z0-9_]*)(?:=([A-Za-z_][A-Za-z0-9_-]*(?:,[A-Za-z_][A-Za-z0-9_-]*)*))?$/;

export function parseNodeCredentials(text: string): CredentialGrants {
  const grants: CredentialGrants = new Map();
  for (const entry of text.split(/\s+/).filter(Boolean)) {
    const m = ENTRY.exec(entry);
    if (!m)
      throw new Error(
        `node-credentials: "${entry}" is not NAME or NAME=node,node (e.g. GH_TOKEN=push,pull-request); entries are separated by spaces or lines`,
      );
    const nodes = m[2] ? new Set(m[2].split(',')) : 'all';
    const before = grants.get(m[1]!);
    // The same name twice adds nodes; "every node" stays every node.
    if (before === 'all' || nodes === 'all') grants.set(m[1]!, 'all');
    else grants.set(m[1]!, new Set([...(before ?? []), ...nodes]));
  }
  return grants;
}

/** What the key proxy (src/os/proxies/key-proxy.ts) asks of every script: the keys to withhold, the variables to set. */
interface AgentCredentials {
  withheld: string[];
  env: Record<string, string>;
  /** The proxy's port on 127.0.0.1: a node in a network namespace still reaches it there. */
  port?: number;
  /** Opens an attempt's tab at the proxy (its calls metered and held to the limits), and closes it. */
  openTab?: (limits: TabLimit[], record?: boolean) => ProxyTab;
  closeTab?: (tab: ProxyTab) => void;
}

let agent: AgentCredentials | undefined;

/** Every script started from now on gets the proxy's placeholders and base URLs in place of the model keys. */
export function configureAgentCredentials(served: AgentCredentials | undefined): void {
  agent = served;
}

/** The placeholders of each open attempt tab, by the attempt's exec tag (INTERLOCK_EXEC_TAG). */
const tabEnvs = new Map<string, Record<string, string>>();

/**
 * Opens the tab of the attempt `execTag` at the key proxy: every script of that attempt (its env's
 * INTERLOCK_EXEC_TAG) gets the tab's placeholders, so each model call it makes is metered to it. Undefined when
 * the proxy is off.
 */
export function openAttemptTab(execTag: string, limits: TabLimit[], record = false): ProxyTab | undefined {
  if (!agent?.openTab) return undefined;
  const tab = agent.openTab(limits, record);
  tabEnvs.set(execTag, tab.env());
  return tab;
}

/** Closes the attempt's tab: its placeholders are refused from now on (its checks get the step's). */
export function closeAttemptTab(execTag: string, tab: ProxyTab): void {
  tabEnvs.delete(execTag);
  agent?.closeTab?.(tab);
}

/** The key proxy's port, for the network namespace to pass through (none when it is off). */
export function agentCredentialsPorts(): number[] {
  return agent?.port ? [agent.port] : [];
}

/** The variables the key proxy gives nodes (empty when it is off). */
export function agentCredentialsEnv(): Record<string, string> {
  return agent?.env ?? {};
}

/** The secrets `grants` gives `node` (an instance `work[3]` has its node's), by name. */
function grantedTo(grants: CredentialGrants, node: string): string[] {
  const own = node.replace(/\[[^\]]*\]$/, '');
  return [...grants]
    .filter(([, grant]) => grant === 'all' || grant.has(own))
    .map(([name]) => name)
    .sort();
}

/** Whether two nodes are given the same secrets under `grants`: a serialized chain joins only such nodes. */
export function sameCredentialsUnder(grants: CredentialGrants): (a: string, b: string) => boolean {
  return (a, b) => grantedTo(grants, a).join(' ') === grantedTo(grants, b).join(' ');
}

/**
 * The environment without the secrets this node (env.INTERLOCK_NODE) was not granted: every GitHub token and
 * every name `node-credentials` lists, unless it names this node (or every node); and the model keys the key proxy
 * serves (`agent-credentials`), replaced by its placeholders and base URLs, for every node.
 */
export function withoutWithheldCredentials(
  env: NodeJS.ProcessEnv,
  grants: CredentialGrants,
): NodeJS.ProcessEnv {
  // An instance of a for_each node (`work[3]`, issue 28) has the grants of its node (`work`).
  const node = (env.INTERLOCK_NODE ?? '').replace(/\[[^\]]*\]$/, '');
  const out = { ...env };
  for (const name of new Set([...GITHUB_CREDENTIALS, ...grants.keys()])) {
    const grant = grants.get(name);
    if (grant === 'all' || grant?.has(node)) continue;
    delete out[name];
  }
  if (!agent) return out;
  for (const name of agent.withheld) delete out[name];
  Object.assign(out, agent.env, tabEnvs.get(env.INTERLOCK_EXEC_TAG ?? '') ?? {});
  // A node's HTTP proxy (HTTPS_PROXY) must not carry its model calls away from the loopback key proxy.
  out.NO_PROXY = withLoopbackNoProxy(out.NO_PROXY);
  out.no_proxy = withLoopbackNoProxy(out.no_proxy);
  return out;
}

/**
 * The values of the secrets `env` holds, which the journal never carries (src/render/redact.ts): the GitHub
 * tokens, the model keys the key proxy knows, and the variables `names` adds.
 */
export function secretValues(env: NodeJS.ProcessEnv, names: Iterable<string> = []): string[] {
  const all = new Set([...GITHUB_CREDENTIALS, ...Object.keys(MODEL_KEYS), ...names]);
  const values = [...all]
    .map((n) => env[n])
    .filter((v): v is string => typeof v === 'string' && v.length > 0);
  return [...new Set(values)];
}
