// The node-credentials input: which node may receive which GitHub token from the step's environment.
import { afterEach, describe, expect, it } from 'vitest';
import { nodeEnvironment } from '../../src/action/inputs.js';
import {
  configureNodeCredentials,
  parseNodeCredentials,
  withoutWithheldCredentials,
} from '../../src/os/node-credentials.js';

afterEach(() => configureNodeCredentials(new Map()));

describe('node-credentials', () => {
  it('reads NAME (every node) and NAME=node,node (those nodes), separated by spaces or lines', () => {
    expect(parseNodeCredentials('GH_TOKEN=push,pull-request\nGITHUB_TOKEN')).toEqual(
      new Map<string, unknown>([
        ['GH_TOKEN', new Set(['push', 'pull-request'])],
        ['GITHUB_TOKEN', 'all'],
      ]),
    );
  });
  it('refuses anything else, naming the entry and the form', () => {
    expect(() => parseNodeCredentials('GH_TOKEN=push;rm')).toThrow(
      'node-credentials: "GH_TOKEN=push;rm" is not NAME or NAME=node,node',
    );
  });
  it('withholds GitHub tokens, runner files and the action inputs from nodes by default', () => {
    const env = nodeEnvironment({
      PATH: '/bin',
      GH_TOKEN: 't',
      GITHUB_TOKEN: 't',
      GITHUB_OUTPUT: '/o',
      GITHUB_STEP_SUMMARY: '/s',
      GITHUB_ENV: '/e',
      INPUT_TOKEN: 't',
      ACTIONS_RUNTIME_TOKEN: 't',
      ANTHROPIC_API_KEY: 'k',
    });
    expect(env).toEqual({ PATH: '/bin', ANTHROPIC_API_KEY: 'k' });
  });
  it('gives a granted token only to the nodes it names', () => {
    const env = nodeEnvironment({ GH_TOKEN: 't', 'INPUT_NODE-CREDENTIALS': 'GH_TOKEN=push' });
    expect(env).toEqual({ GH_TOKEN: 't' });
    configureNodeCredentials(parseNodeCredentials('GH_TOKEN=push'));
    expect(withoutWithheldCredentials({ ...env, INTERLOCK_NODE: 'push' }).GH_TOKEN).toBe('t');
    expect(withoutWithheldCredentials({ ...env, INTERLOCK_NODE: 'implement' }).GH_TOKEN).toBeUndefined();
  });
});
