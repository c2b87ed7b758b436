/**
 * An effect node's attempt: interlock performs the effect itself, with its own token, in its own process (no
 * node process runs). Before acting it asks GitHub whether the effect already happened, by the mark it leaves
 * (a commit trailer, a hidden marker in a comment or a pull request's body; labels are idempotent), so an
 * attempt run again after a crash records what it finds instead of acting twice. What GitHub answered is the
 * node's evidence; its outputs name what was made (`sha`, `number`, `url`, `comment_id`, `release_id`, `tag`).
 */

import type { GitHubEvidence } from '../../evidence/github.js';
import type { ExpressionContext } from '../../expressions/evaluate.js';
import { interpolate } from '../../expressions/evaluate.js';
import type { GraphNode } from '../../graph/model.js';
import { BRANCH_NAME, type Effect, effectKind } from '../../graph/schema/effect.js';
import type { Evidence } from '../../journal/events/fields.js';
import { checkoutHead } from '../../os/git/git-guard.js';
import { bodyMark, ownBody, ownComment, ownMarkIn } from '../../protocol/attempt/effect-marks.js';
import { protectedChanges } from '../../protocol/attempt/protected-paths.js';
import { settingFailureMessage } from '../../protocol/attempt/repository-settings.js';
import type { AttemptOutcome } from '../../protocol/decide.js';
import { type FileChange, workspaceChange } from './change.js';
import { pushChange } from './push.js';
import { release } from './release.js';
import { effectRequest as ask } from './request.js';
import type { EffectMarks } from './secret.js';

/** Limits of one change, each with its reason: GitHub's own limits are higher, a reviewer's are not. */
const EFFECT_LIMITS = {
  /** Files in one change: more is rarely a fix an agent should push unreviewed. */
  files: 300,
  /** Bytes in one change (10 MB): GitHub refuses blobs over 100 MB, and large files belong in LFS. */
  bytes: 10 * 1024 * 1024,
};

export interface EffectSetup {
  github: GitHubEvidence | undefined;
  cwd: string;
  runId: string;
  /** The node's idempotency key: the mark the effect leaves names it. */
  idempotencyKey: string;
  /** The value this attempt's mark carries, and the hashes a mark of interlock's own has (src/protocol/attempt/effect-marks.ts). */
  marks: EffectMarks;
  /** The protected path patterns: the default branch's configuration, the run's graph and its skills. */
  protectedPaths: () => Promise<string[]>;
  say?: (m: string) => void;
}

type Result = Pick<AttemptOutcome, 'failures' | 'evidence' | 'outputs'>;

/** Every string of the effect with `${{ }}` expanded: the values are data, never run. */
function expand(effect: Effect, ctx: ExpressionContext): Effect {
  const walk = (v: unknown): unknown =>
    typeof v === 'string'
      ? interpolate(v, ctx)
      : Array.isArray(v)
        ? v.map(walk)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
          : v;
  return walk(effect) as Effect;
}

/** The change, refused with every reason at once: protected paths (each named), the limits, nothing to commit. */
function vetted(changes: FileChange[], prot: string[], node: GraphNode): FileChange[] {
  if (!changes.length) throw new Error('the workspace has no change since the checkout: nothing to commit');
  const problems: string[] = [];
  const touched = protectedChanges(
    changes.map((c) => c.path),
    prot,
    node.allow_protected_paths ?? [],
  );
  if (touched.length)
    problems.push(
      `it changes protected paths: ${touched.join(', ')} (allow one by naming it in the node's allow_protected_paths)`,
    );
  const bytes = changes.reduce((n, c) => n + (c.deleted ? 0 : c.content.length), 0);
  if (changes.length > EFFECT_LIMITS.files)
    problems.push(`it changes ${changes.length} files, over the limit of ${EFFECT_LIMITS.files}`);
  if (bytes > EFFECT_LIMITS.bytes)
    problems.push(`it holds ${bytes} bytes, over the limit of ${EFFECT_LIMITS.bytes} (10 MB)`);
  if (problems.length) throw new Error(`the change was refused: ${problems.join('; ')}`);
  return changes;
}

async function doPush(s: EffectSetup, node: GraphNode, branch: string, message: string) {
  const gh = s.github!;
  if (!BRANCH_NAME.safeParse(branch).success) throw new Error(`"${branch}" is not a branch name git accepts`);
  const prot = await s.protectedPaths();
  const checkout = checkoutHead();
  return pushChange({
    octokit: gh.octokit,
    repo: gh.repo,
    branch,
    message,
    idempotencyKey: s.idempotencyKey,
    marks: s.marks,
    runId: s.runId,
    checkout,
    change: () => {
      if (!checkout)
        throw new Error('the workspace is not a git checkout with a commit: there is no change to read');
      return vetted(workspaceChange(s.cwd, checkout), prot, node);
    },
  });
}

/** GitHub's refusal that only a repository setting fixes, rethrown as what to do (src/protocol/attempt/repository-settings.ts). */
function inSettingWords(e: unknown): never {
  const err = e as { status?: number; message?: string };
  const words = settingFailureMessage(err.status, err.message ?? '');
  throw words ? new Error(words) : e;
}

async function pullRequest(
  s: EffectSetup,
  node: GraphNode,
  spec: Extract<Effect, { pull_request: unknown }>['pull_request'],
) {
  const gh = s.github!;
  const pushed = await doPush(s, node, spec.branch, spec.title);
  const bodyWith = (value: string) =>
    `${spec.body ?? ''}\n\n${bodyMark(s.idempotencyKey, value)}`.trimStart();
  const body = bodyWith(s.marks.value);
  const open = await ask(() =>
    gh.octokit.paginate(gh.octokit.rest.pulls.list, {
      ...gh.repo,
      head: `${gh.repo.owner}:${spec.branch}`,
      state: 'all',
      per_page: 100,
    }),
  );
  let pr = open.find((p) => ownBody(p.body, s.idempotencyKey, s.marks.own));
  let how = 'found by its mark';
  if (!pr) {
    const base =
      spec.base ?? (await ask(() => gh.octokit.rest.repos.get({ ...gh.repo }))).data.default_branch;
    pr = (
      await ask(() =>
        gh.octokit.rest.pulls
          .create({
            ...gh.repo,
            head: spec.branch,
            base,
            title: spec.title,
            body,
            ...(spec.draft !== undefined ? { draft: spec.draft } : {}),
          })
          .catch(inSettingWords),
      )
    ).data as unknown as (typeof open)[number];
    how = 'opened';
  } else if (
    pr.title !== spec.title ||
    pr.body !== bodyWith(ownMarkIn(pr.body, s.idempotencyKey, s.marks.own)!.value!)
  ) {
    // An earlier attempt's pull request with the same title and text is this one: its mark stays.
    const number = pr.number;
    await ask(() =>
      gh.octokit.rest.pulls.update({ ...gh.repo, pull_number: number, title: spec.title, body }),
    );
    how = 'updated';
  }
  const labels = spec.labels ?? [];
  const number = pr.number;
  if (labels.length)
    await ask(() => gh.octokit.rest.issues.addLabels({ ...gh.repo, issue_number: number, labels }));
  return {
    evidence: `pull request #${pr.number} ${how} (${pr.html_url}), head ${spec.branch} at ${pushed.sha.slice(0, 12)} (${pushed.how})`,
    outputs: { sha: pushed.sha, number: String(pr.number), url: pr.html_url, branch: spec.branch },
  };
}

async function comment(s: EffectSetup, text: string) {
  const gh = s.github!;
  if (!gh.subject) throw new Error('the run has no subject (issue or pull request) to comment on');
  const subject = gh.subject;
  const all = await ask(() =>
    gh.octokit.paginate(gh.octokit.rest.issues.listComments, {
      ...gh.repo,
      issue_number: subject,
      per_page: 100,
    }),
  );
  // A marker is plain text anyone who may comment could paste: only a bot's comment with the key's own value counts.
  const found = all.find((c) => ownComment(c, s.idempotencyKey, s.marks.own));
  const made =
    found ??
    (
      await ask(() =>
        gh.octokit.rest.issues.createComment({
          ...gh.repo,
          issue_number: subject,
          body: `${text}\n\n${bodyMark(s.idempotencyKey, s.marks.value)}`,
        }),
      )
    ).data;
  return {
    evidence: `comment ${made.id} ${found ? 'found by its mark' : 'posted'} on #${gh.subject} (${made.html_url})`,
    outputs: { comment_id: String(made.id), url: made.html_url },
  };
}

async function labels(s: EffectSetup, spec: { add?: string[] | undefined; remove?: string[] | undefined }) {
  const gh = s.github!;
  if (!gh.subject) throw new Error('the run has no subject (issue or pull request) to label');
  const subject = gh.subject;
  const add = spec.add ?? [];
  if (add.length)
    await ask(() => gh.octokit.rest.issues.addLabels({ ...gh.repo, issue_number: subject, labels: add }));
  for (const name of spec.remove ?? []) {
    try {
      await ask(() => gh.octokit.rest.issues.removeLabel({ ...gh.repo, issue_number: subject, name }));
    } catch (e) {
      // Removing a label the subject does not carry is what was asked.
      if ((e as { status?: number }).status !== 404) throw e;
    }
  }
  const now = (
    await ask(() => gh.octokit.rest.issues.listLabelsOnIssue({ ...gh.repo, issue_number: subject }))
  ).data.map((l) => l.name);
  return {
    evidence: `#${gh.subject} carries: ${now.join(', ') || '(no labels)'}`,
    outputs: { labels: now.join(',') },
  };
}

/** Why an effect node does not run without GitHub (the CLI), and what a person does instead. */
export function effectNeedsGitHub(node: string): string {
  return `"${node}" is an effect: interlock performs it with GitHub's API and the Action's token, so it runs in the Action, not the CLI; it was not dispatched (no attempt spent). Run the graph in the Action for it`;
}

/** Performs the node's effect (or finds it done); never throws: a failure is in the result. */
export async function performEffect(
  s: EffectSetup,
  node: GraphNode,
  ctx: ExpressionContext,
): Promise<Result> {
  const kind = effectKind(node.effect!);
  const check = `effect ${kind}`;
  if (!s.github)
    return { failures: [{ check, message: effectNeedsGitHub(node.id) }], evidence: [], outputs: {} };
  try {
    const effect = expand(node.effect!, ctx);
    const done =
      'push' in effect
        ? await doPush(s, node, effect.push.branch, effect.push.message).then((p) => ({
            evidence: `commit ${p.sha.slice(0, 12)} on ${effect.push.branch} (${p.how === 'found' ? 'found by its mark' : `${p.how}, ${p.files} file(s)`})`,
            outputs: { sha: p.sha, branch: effect.push.branch },
          }))
        : 'pull_request' in effect
          ? await pullRequest(s, node, effect.pull_request)
          : 'comment' in effect
            ? await comment(s, effect.comment.body)
            : 'release' in effect
              ? await release(s, effect.release)
              : await labels(s, effect.labels);
    const evidence: Evidence = { check, passed: true, observed: done.evidence };
    return { failures: [], evidence: [evidence], outputs: done.outputs };
  } catch (e) {
    const message = (e as Error).message.split('\n')[0]!;
    return {
      failures: [{ check, message }],
      evidence: [{ check, passed: false, observed: message }],
      outputs: {},
    };
  }
}
