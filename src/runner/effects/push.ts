/**
 * The `push` effect (and the commit of `pull_request`): the workspace's change as one commit on a branch, made
 * through the git data API (the tree with its text files inline, a blob per other file, the commit, the ref), so
 * the commit is GitHub's own (and shown as verified). Exactly once: the commit carries an `Interlock-Effect:`
 * trailer with the node's idempotency key and the attempt's mark value, and the branch is asked first; a tip is
 * this effect's, or this run's, only by the rule of src/protocol/attempt/effect-marks.ts; a branch that has moved in a
 * way this run did not make is refused, never overwritten.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { GitHubClient, RepoRef } from '../../github/client.js';
import { statusOf } from '../../github/status.js';
import { commitMark, commitMarkOf, isOwnMark, isRunMark } from '../../protocol/attempt/effect-marks.js';
import type { FileChange } from './change.js';
import { effectRequest as ask } from './request.js';
import type { EffectMarks } from './secret.js';

interface PushRequest {
  /** How many times a read of the branch by name was found stale (its create refused: it exists). */
  staleRetries?: number;
  octokit: GitHubClient;
  repo: RepoRef;
  branch: string;
  message: string;
  /** The node's idempotency key (`<run-id>/<node>`): the mark the commit carries names it. */
  idempotencyKey: string;
  /** The value the mark carries, and the hashes a mark of interlock's own has. */
  marks: EffectMarks;
  /** The run's id: a tip whose trailer names this run was made by it, and may be moved on. */
  runId: string;
  /** The commit the checkout was at; the change is laid over it (or over `fallbackBase` if GitHub lacks it). */
  checkout: string | undefined;
  /**
   * The change, read and vetted (protected paths, limits; throws with the reason): only once GitHub has said it
   * has no commit of this effect yet, since after a crash a fresh checkout no longer holds it.
   */
  change: () => FileChange[];
  /** Said as the effect goes: what it found and did. */
  say?: (m: string) => void;
}

interface PushResult {
  sha: string;
  /** `found`: the commit was there already (by its mark); `created` / `moved`: the ref was made or fast-forwarded. */
  how: 'found' | 'created' | 'moved';
  files: number;
}

async function maybe<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    if (statusOf(e) === 404 || statusOf(e) === 409) return undefined;
    throw e;
  }
}

/** Text that GitHub can take inline in a tree: valid UTF-8 without NUL. */
function inlineText(content: Buffer): string | undefined {
  if (content.includes(0)) return undefined;
  const text = content.toString('utf8');
  return Buffer.from(text, 'utf8').equals(content) ? text : undefined;
}

/** Whether the branch tip may be moved on: the checkout's commit, or a commit of this run's own effects. */
function madeHere(req: PushRequest, tip: { sha: string; message: string }): boolean {
  if (tip.sha === req.checkout) return true;
  return isRunMark(commitMarkOf(tip.message), req.runId, req.marks.run);
}

/** The change as one commit on `branch`; the one made before when GitHub already has it. */
export async function pushChange(req: PushRequest): Promise<PushResult> {
  const { octokit, repo, branch } = req;
  const ref = await maybe(() => ask(() => octokit.rest.git.getRef({ ...repo, ref: `heads/${branch}` })));
  const tipSha = ref?.data.object.sha;
  const tip = tipSha
    ? (await ask(() => octokit.rest.git.getCommit({ ...repo, commit_sha: tipSha }))).data
    : undefined;
  if (tip && isOwnMark(commitMarkOf(tip.message), req.idempotencyKey, req.marks.own))
    return { sha: tip.sha, how: 'found', files: 0 };
  if (tip && !madeHere(req, tip))
    throw new Error(
      `branch "${branch}" is at ${tip.sha.slice(0, 12)}, a commit this run did not make (the checkout was at ${req.checkout?.slice(0, 12) ?? 'no commit'}): refusing to move it; delete the branch or name another`,
    );
  const files = req.change();
  const parent =
    tip ??
    (req.checkout
      ? await maybe(() => ask(() => octokit.rest.git.getCommit({ ...repo, commit_sha: req.checkout! })))
      : undefined
    )?.data;
  if (!parent)
    throw new Error(
      `GitHub has no commit ${req.checkout?.slice(0, 12) ?? '(none)'} (the checkout's) to lay the change over: push the checkout's commit first, or check out a commit of the repository`,
    );
  type TreeEntry = NonNullable<Parameters<GitHubClient['rest']['git']['createTree']>[0]>['tree'][number];
  const tree: TreeEntry[] = [];
  for (const f of files) {
    if (f.deleted) {
      tree.push({ path: f.path, mode: '100644' as const, type: 'blob' as const, sha: null });
      continue;
    }
    const text = inlineText(f.content);
    if (text !== undefined) tree.push({ path: f.path, mode: f.mode, type: 'blob' as const, content: text });
    else {
      const blob = await ask(() =>
        octokit.rest.git.createBlob({ ...repo, content: f.content.toString('base64'), encoding: 'base64' }),
      );
      tree.push({ path: f.path, mode: f.mode, type: 'blob' as const, sha: blob.data.sha });
    }
  }
  const made = await ask(() => octokit.rest.git.createTree({ ...repo, base_tree: parent.tree.sha, tree }));
  const commit = await ask(() =>
    octokit.rest.git.createCommit({
      ...repo,
      message: `${req.message.trimEnd()}\n\n${commitMark(req.idempotencyKey, req.marks.value)}\n`,
      tree: made.data.sha,
      parents: [parent.sha],
    }),
  );
  const sha = commit.data.sha;
  if (tip)
    await ask(() => octokit.rest.git.updateRef({ ...repo, ref: `heads/${branch}`, sha, force: false }));
  else {
    const created = await ask(() => octokit.rest.git.createRef({ ...repo, ref: `refs/heads/${branch}`, sha }))
      .then(() => true)
      .catch((e: unknown) => {
        if (statusOf(e) === 422 && (req.staleRetries ?? 0) < STALE_RETRIES) return false;
        throw e;
      });
    // The branch exists although the read by its name said not: GitHub answered from the past (a read by branch
    // name can lag seconds). Never acted on: read it again after a wait, and decide from what it holds.
    if (!created) {
      await sleep(1000 * 2 ** (req.staleRetries ?? 0));
      return pushChange({ ...req, staleRetries: (req.staleRetries ?? 0) + 1 });
    }
  }
  return { sha: commit.data.sha, how: tip ? 'moved' : 'created', files: files.length };
}

/** Reads of a branch that said "no such branch" while GitHub had it, read again (1, 2, 4 s apart). */
const STALE_RETRIES = 3;
