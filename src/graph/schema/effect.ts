/**
 * `effect:` — a change to the world outside the runner that interlock performs itself, with its own token, never
 * a node process: a branch commit, a pull request, a comment on the run's subject, labels, a release. String values may hold
 * `${{ }}` expressions (the event, inputs, earlier nodes' outputs); they are data, never run.
 */
import * as z from 'zod';

const Text = z.string().min(1);
const Branch = Text.regex(/^(?!\/)(?!.*\.\.)(?!.*\/\/)[^\s~^:?*[\\]+(?<!\/)(?<!\.lock)$/).register(
  z.globalRegistry,
  {
    description: 'A branch name (no spaces, `..`, `~^:?*[\\`), or an expression giving one.',
  },
);

const PushSchema = z
  .strictObject({
    branch: z.string().min(1).register(z.globalRegistry, {
      description: 'The branch to create or fast-forward; may hold `${{ }}` expressions.',
    }),
    message: Text.register(z.globalRegistry, { description: 'The commit message; may hold `${{ }}`.' }),
  })
  .register(z.globalRegistry, {
    description:
      "Commits the workspace's changes since the run's checkout (tracked and untracked files git does not ignore; `.interlock/` excluded) onto `branch`, through the git data API.",
  });

const PullRequestSchema = z
  .strictObject({
    branch: z
      .string()
      .min(1)
      .register(z.globalRegistry, { description: 'The head branch; may hold `${{ }}`.' }),
    title: Text.register(z.globalRegistry, { description: 'The title; may hold `${{ }}`.' }),
    body: z.string().optional().register(z.globalRegistry, { description: 'The body; may hold `${{ }}`.' }),
    base: z.string().min(1).optional().register(z.globalRegistry, {
      description: "The base branch (default: the repository's default branch).",
    }),
    draft: z.boolean().optional().register(z.globalRegistry, { description: 'Open it as a draft.' }),
    labels: z.array(Text).optional().register(z.globalRegistry, { description: 'Labels to add to it.' }),
  })
  .register(z.globalRegistry, {
    description:
      'Pushes as `push` does (the commit message is the title), then opens the pull request, or updates the one it opened before.',
  });

const CommentSchema = z
  .strictObject({
    body: Text.register(z.globalRegistry, { description: 'The comment; may hold `${{ }}`.' }),
  })
  .register(z.globalRegistry, { description: "A comment on the run's subject (issue or pull request)." });

const LabelsSchema = z
  .strictObject({
    add: z.array(Text).optional().register(z.globalRegistry, { description: 'Labels to add.' }),
    remove: z.array(Text).optional().register(z.globalRegistry, { description: 'Labels to remove.' }),
  })
  .register(z.globalRegistry, { description: "Labels added to and removed from the run's subject." });

const ReleaseSchema = z
  .strictObject({
    tag: Text.register(z.globalRegistry, {
      description:
        'The tag, e.g. `v${{ nodes.version.outputs.version }}`; made at `target` when it does not exist.',
    }),
    name: z
      .string()
      .min(1)
      .optional()
      .register(z.globalRegistry, { description: 'The title (default: the tag).' }),
    body: z.string().optional().register(z.globalRegistry, { description: 'The notes; may hold `${{ }}`.' }),
    target: z.string().min(1).optional().register(z.globalRegistry, {
      description: "The commit-ish a new tag is made at (default: the repository's default branch).",
    }),
    draft: z.boolean().optional().register(z.globalRegistry, { description: 'Make it a draft.' }),
    prerelease: z.boolean().optional().register(z.globalRegistry, { description: 'Mark it a pre-release.' }),
    generate_notes: z.boolean().optional().register(z.globalRegistry, {
      description: 'Let GitHub write the notes from the merged pull requests (`body` comes first).',
    }),
  })
  .register(z.globalRegistry, {
    description:
      'Creates the GitHub release of `tag`, or finds the one it made before; a release of that tag someone else made is refused.',
  });

export const EffectSchema = z
  .union(
    [
      z.strictObject({ push: PushSchema }),
      z.strictObject({ pull_request: PullRequestSchema }),
      z.strictObject({ comment: CommentSchema }),
      z.strictObject({ labels: LabelsSchema }),
      z.strictObject({ release: ReleaseSchema }),
    ],
    {
      error:
        'an effect is exactly one of push, pull_request, comment, labels or release, each with its fields (docs/effects.md)',
    },
  )
  .register(z.globalRegistry, {
    description:
      'What interlock does itself with its own token (exactly one of push, pull_request, comment, labels, release); the node runs no command. See docs/effects.md.',
  });

export type Effect = z.infer<typeof EffectSchema>;

/** The kind of an effect: its one key. */
type EffectKind = 'push' | 'pull_request' | 'comment' | 'labels' | 'release';
export function effectKind(e: Effect): EffectKind {
  return Object.keys(e)[0] as EffectKind;
}

/** A branch name git and GitHub accept (checked after expressions are expanded). */
export const BRANCH_NAME = Branch;
