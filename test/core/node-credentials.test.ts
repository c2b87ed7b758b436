// The node-credentials input: which node may receive which GitHub token from the step's environment.
import { describe, expect, it } from 'vitest';
import { nodeEnvironment } from '../../src/action/context/inputs.js';
import { grantsMisfit } from '../../src/graph/credential-grants.js';
import { parseNodeCredentials, withoutWithheldCredentials } from '../../src/os/node-user/node-credentials.js';

describe('node-credentials', () => {
  it('reads NAME (every node) and NAME=node,node (those nodes), separated by spaces or lines', () => {
    expect(parseNodeCredentials('GH_TOKEN=push,pull-request\nGITHUB_TOKEN')).toEqual(
      new Map<string, unknown>([
        ['GH_TOKEN', new Set(['push', 'pull-request'])],
        ['GITHUB_TOKEN', 'all'],
      ]),
    );
  });
  it("gives an instance its node's grants, and a sub-graph's nodes none of their sub-graph node's", () => {
    const grants = parseNodeCredentials('NPM_TOKEN=work,review');
    const env = (node: string) =>
      withoutWithheldCredentials({ NPM_TOKEN: 'n', INTERLOCK_NODE: node }, grants).NPM_TOKEN;
    expect(env('work')).toBe('n');
    expect(env('work[3]')).toBe('n');
    expect(env('review/build')).toBeUndefined();
    expect(env('work[3]/build')).toBeUndefined();
    expect(env('review/work[3]')).toBeUndefined();
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
    const grants = parseNodeCredentials('GH_TOKEN=push');
    expect(withoutWithheldCredentials({ ...env, INTERLOCK_NODE: 'push' }, grants).GH_TOKEN).toBe('t');
    expect(
      withoutWithheldCredentials({ ...env, INTERLOCK_NODE: 'implement' }, grants).GH_TOKEN,
    ).toBeUndefined();
    // Without the grants (the CLI's isolation), the token is withheld from every node.
    expect(
      withoutWithheldCredentials({ ...env, INTERLOCK_NODE: 'push' }, new Map()).GH_TOKEN,
    ).toBeUndefined();
  });
});

describe('node-credentials scopes any name it lists', () => {
  it('withholds NPM_TOKEN from every node but the one named (NPM_TOKEN=release)', () => {
    const grants = parseNodeCredentials('NPM_TOKEN=release');
    const env = nodeEnvironment({
      NPM_TOKEN: 'npm_x',
      PATH: '/bin',
      'INPUT_NODE-CREDENTIALS': 'NPM_TOKEN=release',
    });
    expect(withoutWithheldCredentials({ ...env, INTERLOCK_NODE: 'release' }, grants).NPM_TOKEN).toBe('npm_x');
    for (const node of ['implement', 'build', ''])
      expect(withoutWithheldCredentials({ ...env, INTERLOCK_NODE: node }, grants).NPM_TOKEN).toBeUndefined();
    // A name it does not list is the step's, and reaches every node (SECURITY.md says to list every secret).
    expect(withoutWithheldCredentials({ ...env, OTHER: 'o', INTERLOCK_NODE: 'build' }, grants).OTHER).toBe(
      'o',
    );
  });
  it('NAME alone gives it to every node, and a name listed twice adds nodes', () => {
    expect(parseNodeCredentials('NPM_TOKEN=a NPM_TOKEN=b')).toEqual(
      new Map([['NPM_TOKEN', new Set(['a', 'b'])]]),
    );
    expect(parseNodeCredentials('NPM_TOKEN=a NPM_TOKEN')).toEqual(new Map([['NPM_TOKEN', 'all']]));
  });
  it("refuses a node the graph does not have, naming the graph's nodes and the closest", () => {
    expect(grantsMisfit(parseNodeCredentials('NPM_TOKEN=relase GH_TOKEN'), ['build', 'release'])).toBe(
      'node-credentials: NPM_TOKEN=relase: "relase" is not a node of this graph (did you mean "release"?). The graph\'s nodes: build, release',
    );
    expect(grantsMisfit(parseNodeCredentials('NPM_TOKEN=release'), ['build', 'release'])).toBeUndefined();
  });
});
