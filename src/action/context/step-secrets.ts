/**
 * The step's secrets, which the journal never carries (src/render/redact.ts, applied by the commit): the action's
 * token, the runner's own tokens, the GitHub tokens in the step's environment, every variable `node-credentials`
 * grants and every model key `agent-credentials` serves.
 */

import { parseNodeCredentials, secretValues } from '../../os/node-user/node-credentials.js';
import { parseAgentCredentials } from '../../os/proxies/key-proxy-rules.js';
import type { Inputs } from './inputs.js';

/** The runner's tokens a step holds besides the action's own. */
const RUNNER_TOKENS = ['ACTIONS_RUNTIME_TOKEN', 'ACTIONS_ID_TOKEN_REQUEST_TOKEN'];

export function stepSecrets(inputs: Inputs, env: NodeJS.ProcessEnv): string[] {
  const names = new Set([...RUNNER_TOKENS, ...parseNodeCredentials(inputs['node-credentials']).keys()]);
  try {
    for (const n of parseAgentCredentials(inputs['agent-credentials'])) names.add(n);
  } catch {
    // A bad list is refused where the key proxy starts; the model keys are counted anyway.
  }
  return [...new Set([inputs.token, ...secretValues(env, names)])];
}
