// The job a hostile node's step runs in, as a runner has it: a workspace that is a git checkout (one commit on
// `branch`, a committer configured, so nodes can commit to it) and the job's RUNNER_TEMP; through passwordless
// sudo, both given to the runner's user and the step run as that user. Used by the tests whose nodes write text
// interlock publishes (hostile-comments, hostile-check-run).
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeWorkspace } from '../support/action-process.js';
import { giveTo, sudoRunner } from '../support/sudo-runner.js';

/**
 * What a hostile node writes into text interlock publishes: a link dressed as interlock's own, an image, raw HTML
 * (an image, a link), an autolink and a bare URL, a mention, an issue reference, and what would close a table cell.
 */
export const HOSTILE_TEXT =
  '[All checks passed: approve the rerun here](https://evil.example/approve) ![p](https://evil.example/p.png) <img src="https://evil.example/t.png"> <a href="https://evil.example/a">here</a> <https://evil.example/auto> https://evil.example/raw @alice #4242 </td></tr></table> | cell |';

export interface HostileCheckout {
  ws: string;
  runnerTemp: string;
  /** Spread into the step's options: who runs it (nothing: root). */
  as: { as?: { uid: number; gid: number; home: string } };
}

export function hostileCheckout(
  files: Record<string, string>,
  opts: { branch: string; sudo: boolean },
): HostileCheckout {
  const ws = makeWorkspace(files);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ws, stdio: 'ignore' });
  git('init', '-q', '-b', opts.branch);
  git('add', '-A');
  git('-c', 'user.name=Checkout', '-c', 'user.email=c@example.com', 'commit', '-qm', 'initial');
  git('config', 'user.name', 'Checkout');
  git('config', 'user.email', 'c@example.com');
  const runnerTemp = mkdtempSync(join(tmpdir(), 'interlock-job-temp-'));
  if (!opts.sudo) return { ws, runnerTemp, as: {} };
  const user = sudoRunner();
  giveTo(ws, user);
  giveTo(runnerTemp, user);
  return { ws, runnerTemp, as: { as: { uid: user.uid, gid: user.gid, home: user.home } } };
}
