/**
 * Which nodes may receive which GitHub token from the step's environment (the `node-credentials` input):
 * `GH_TOKEN` gives it to every node, `GH_TOKEN=push,pull-request` only to those nodes, so an agent node never
 * holds the token that pushes. Parsed once; applied to every script runScript starts, by its INTERLOCK_NODE.
 */

/** Credentials a workflow commonly puts in the step's env; a node gets one only when `node-credentials` grants it. */
export const GITHUB_CREDENTIALS = [
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'GITHUB_ENTERPRISE_TOKEN',
];

/** Credential name to the nodes given it ('all' for every node). */
export type CredentialGrants = Map<string, Set<string> | 'all'>;

const ENTRY = /^([A-Z_][A-Z0-9_]*)(?:=([A-Za-z_][A-Za-z0-9_-]*(?:,[A-Za-z_][A-Za-z0-9_-]*)*))?$/;

export function parseNodeCredentials(text: string): CredentialGrants {
  const grants: CredentialGrants = new Map();
  for (const entry of text.split(/\s+/).filter(Boolean)) {
    const m = ENTRY.exec(entry);
    if (!m)
      throw new Error(
        `node-credentials: "${entry}" is not NAME or NAME=node,node (e.g. GH_TOKEN=push,pull-request); entries are separated by spaces or lines`,
      );
    grants.set(m[1]!, m[2] ? new Set(m[2].split(',')) : 'all');
  }
  return grants;
}

let configured: CredentialGrants = new Map();

export function configureNodeCredentials(grants: CredentialGrants): void {
  configured = grants;
}

/** The environment without the GitHub tokens this node (env.INTERLOCK_NODE) was not granted. */
export function withoutWithheldCredentials(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const node = env.INTERLOCK_NODE ?? '';
  const out = { ...env };
  for (const name of GITHUB_CREDENTIALS) {
    const grant = configured.get(name);
    if (grant === 'all' || grant?.has(node)) continue;
    delete out[name];
  }
  return out;
}
