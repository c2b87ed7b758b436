/**
 * A run for an effect test: a repository on the local GitHub, a checkout whose commit GitHub has, and an issue
 * routed to the graph, so a step of the bundled action can push the workspace's change, open its pull request,
 * comment and label. Shared by effects.test.ts and effects-crash.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GitHubServer, RepoState } from '../support/github-server.js';
import { FULL, issueStep, routeLabel } from './world.js';

export const GRAPH_FILE = '.github/interlock/ship.yml';
const WHO = { name: 'Checkout', email: 'checkout@example.com', date: '2026-11-30T12:00:00Z' };

/** The implement node's changes: an edit, a new file, a deletion, a mode, a symlink out of the workspace. */
export const IMPLEMENT = `      echo "exports.add = (a, b) => a + b;" > calc.js
      mkdir -p src && echo "new" > src/new.txt
      rm old.txt
      cp tool.sh tool.new && chmod +x tool.new && mv tool.new tool.sh # the runner's file: a node may not chmod it
      ln -s /etc/hostname leak`;

/** The graph: `implement` (a command that changes the workspace), then the nodes in `extra`. */
export const graph = (extra: string, implement = IMPLEMENT) => `interlock: 1
name: ship
nodes:
  - id: implement
    replay: safe
    run: |
${implement}
${extra}`;

/**
 * Makes `ws` a checkout whose commit GitHub has: its files committed on the local GitHub (branch `base`, a root
 * commit) and in a local repository, with the same author, committer, date and message, so both have one sha.
 */
export function commitCheckout(repo: RepoState, ws: string, base: string): string {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const e of readdirSync(join(ws, dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) walk(rel);
      else files[rel] = readFileSync(join(ws, rel), 'utf8');
    }
  };
  walk('');
  const made = repo.commitFiles(
    base,
    files,
    { message: 'initial\n', author: WHO, committer: WHO },
    { orphan: true },
  );
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: WHO.name,
    GIT_AUTHOR_EMAIL: WHO.email,
    GIT_AUTHOR_DATE: WHO.date,
    GIT_COMMITTER_NAME: WHO.name,
    GIT_COMMITTER_EMAIL: WHO.email,
    GIT_COMMITTER_DATE: WHO.date,
  };
  const git = (...a: string[]) => execFileSync('git', a, { cwd: ws, env, encoding: 'utf8' }).trim();
  git('init', '-q', '-b', base);
  git('add', '-A');
  git('commit', '-qm', 'initial');
  const sha = git('rev-parse', 'HEAD');
  if (sha !== made.sha) throw new Error(`the local checkout (${sha}) is not GitHub's commit (${made.sha})`);
  return sha;
}

/** A new folder holding `files`, made a checkout of branch `base` (see commitCheckout). */
function checkout(repo: RepoState, base: string, files: Record<string, string>): { ws: string; sha: string } {
  const ws = execFileSync('mktemp', ['-d', '/tmp/interlock-ws-XXXXXX'], { encoding: 'utf8' }).trim();
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(ws, p, '..'), { recursive: true });
    writeFileSync(join(ws, p), text);
  }
  return { ws, sha: commitCheckout(repo, ws, base) };
}

export type EffectWorld = ReturnType<ReturnType<typeof effectWorlds>>;

/** Makes runs of a graph on `server`, each on an issue of its own. */
export function effectWorlds(server: GitHubServer, firstIssue = 300) {
  const repo = server.state.repo(FULL);
  let issueNo = firstIssue;
  return (graphText: string, more: Record<string, string> = {}) => {
    issueNo += 50; // pull requests take numbers too
    const issue = issueNo;
    const files = {
      ...more,
      '.github/interlock.yml': routeLabel('agent:ship', GRAPH_FILE),
      [GRAPH_FILE]: graphText,
      '.github/workflows/ci.yml': 'on: push\n',
      'calc.js': 'exports.add = (a, b) => a - b;\n',
      'old.txt': 'old\n',
      'tool.sh': '#!/bin/sh\necho tool\n',
    };
    const { ws, sha } = checkout(repo, `base-${issue}`, files);
    repo.addIssue({ number: issue, title: 'add() subtracts', labels: ['agent:ship'] });
    const step = (env: Record<string, string> = {}) =>
      issueStep(server, ws, issue, 'agent:ship', { inputs: { node: 'all' }, env });
    return { issue, ws, sha, step, runId: `ship/issue-${issue}` };
  };
}
