/**
 * The step's secrets, which the journal never carries (src/render/redact.ts, applied by the commit): the action's
 * token, the runner's own tokens, the GitHub tokens in the step's environment, every variable `node-credentials`
 * grants and every model key `agent-credentials` serves.
 */
import { MODEL_KEYS, parseAgentCredentials } from '../os/key-proxy-rules.js';
import { GITHUB_CREDENTIALS, parseNodeCredentials } from '../os/node-credentials.js';
import type { Inputs } from './inputs.js';

/** The runner's tokens a step holds besides the action's own. */
const RUNNER_TOKENS = ['ACTIONS_RUNTIME_TOKEN', 'ACTIONS_ID_TOKEN_REQUEST_TOKEN'];

export function stepSecrets(inputs: Inputs, env: NodeJS.ProcessEnv): string[] {
  const names = new Set([...RUNNER_TOKENS, ...GITHUB_CREDENTIALS, ...Object.keys(MODEL_KEYS)]);
  for (const n of parseNodeCredentials(inputs['node-credentials']).keys()) names.add(n);
  try {
    for (const n of parseAgentCredentials(inputs['agent-credentials'])) names.add(n);
  } catch {
    // A bad list is refused where the key proxy starts; the model keys are counted above anyway.
  }
  const values = [inputs.token, ...[...names].map((n) => env[n])];
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v.length > 0))];
}
