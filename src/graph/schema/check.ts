/** The evidence checks a node's `validates[]` may name: one zod schema per kind, and their union. */
import * as z from 'zod';

/** Node and graph ids: safe in file names, run ids and Mermaid diagrams. */
export const ID_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

const FileCheck = z
  .strictObject({
    file: z.string().min(1).register(z.globalRegistry, {
      description: 'Path, relative to the working directory, that must exist.',
    }),
    contains: z.string().optional().register(z.globalRegistry, {
      description: 'A regular expression the file content must match; `^` and `$` match at every line.',
    }),
  })
  .register(z.globalRegistry, { description: 'Passes when the file exists (and matches `contains`).' });

const CommandCheck = z
  .strictObject({
    command: z.string().min(1).register(z.globalRegistry, {
      description:
        "A bash script, run in the working directory with the node's environment; the check passes when it exits 0. Pass values through the node's `env`, never as `${{ }}`.",
    }),
    timeout_minutes: z.number().positive().max(360).optional().register(z.globalRegistry, {
      description: 'Minutes before the check is killed and fails (default `10`).',
    }),
  })
  .register(z.globalRegistry, { description: 'Passes when the command exits 0.' });

const OutputCheck = z
  .strictObject({
    output: z
      .string()
      .regex(ID_PATTERN)
      .register(z.globalRegistry, { description: 'An output name the node must set.' }),
    matches: z
      .string()
      .optional()
      .register(z.globalRegistry, { description: 'A regular expression the value must match.' }),
  })
  .register(z.globalRegistry, { description: 'Passes when the node set this output (matching `matches`).' });

const GitCheck = z
  .strictObject({
    git: z.strictObject({
      branch: z.string().optional().register(z.globalRegistry, {
        description: 'The branch whose new commits count (default the current `HEAD`).',
      }),
      min_commits: z.number().int().min(1).optional().register(z.globalRegistry, {
        description:
          'How many commits made since the attempt was dispatched (matching `message`, if given) are required (default `1`).',
      }),
      message: z.string().optional().register(z.globalRegistry, {
        description: 'A regular expression one of the new commit messages must match.',
      }),
    }),
  })
  .register(z.globalRegistry, {
    description: 'Passes when new commits exist since the node was dispatched.',
  });

const PullRequestCheck = z
  .strictObject({
    pull_request: z.strictObject({
      head: z.string().min(1).register(z.globalRegistry, {
        description: 'The head branch (may use `${{ }}`, e.g. a node output).',
      }),
      base: z.string().min(1).optional().register(z.globalRegistry, { description: 'The base branch.' }),
      state: z
        .enum(['open', 'merged', 'closed', 'open_or_merged'])
        .optional()
        .register(z.globalRegistry, { description: 'Required state (default `open_or_merged`).' }),
      label: z
        .string()
        .min(1)
        .optional()
        .register(z.globalRegistry, { description: 'A label the pull request must carry.' }),
    }),
  })
  .register(z.globalRegistry, {
    description: 'GitHub: a pull request exists for the head branch, in the required state.',
  });

const CheckRunCheck = z
  .strictObject({
    check: z.strictObject({
      ref: z
        .string()
        .min(1)
        .register(z.globalRegistry, { description: 'A branch, tag or commit sha (may use `${{ }}`).' }),
      name: z.string().min(1).register(z.globalRegistry, { description: 'The check run name.' }),
      conclusion: z
        .enum(['success', 'neutral', 'skipped'])
        .optional()
        .register(z.globalRegistry, { description: 'The conclusion required (default `success`).' }),
      app: z
        .string()
        .regex(/^(\*|[a-z0-9][a-z0-9-]*)$/)
        .optional()
        .register(z.globalRegistry, {
          description:
            "Whose check runs count. Absent (or `github-actions`): only the check run of a GitHub Actions job, proven by asking GitHub for the job with the check run's id (needs `actions: read`), so one a node made with a `GITHUB_TOKEN` is refused. The slug of another GitHub App (your CI's): only that app's. `*`: any app's, including one a node holding a token made. Check runs that do not count are named in the check's result, never counted. See SECURITY.md.",
        }),
    }),
  })
  .register(z.globalRegistry, {
    description:
      'GitHub: the latest check run of this name on the ref that counts under `app` (default: a GitHub Actions job) has completed with the required conclusion.',
  });

const IssueCheck = z
  .strictObject({
    issue: z.strictObject({
      number: z
        .union([z.number().int().positive(), z.string().min(1)])
        .optional()
        .register(z.globalRegistry, {
          description: "The issue or pull request number; may use `${{ }}` (default the run's subject).",
        }),
      state: z
        .enum(['open', 'closed'])
        .optional()
        .register(z.globalRegistry, { description: 'The state it must be in.' }),
      label: z
        .string()
        .min(1)
        .optional()
        .register(z.globalRegistry, { description: 'A label it must carry.' }),
      comment: z
        .string()
        .min(1)
        .optional()
        .register(z.globalRegistry, { description: 'A regular expression a comment must match.' }),
    }),
  })
  .register(z.globalRegistry, {
    description: 'GitHub: the issue has the state, label or a matching comment.',
  });

const BranchCheck = z
  .strictObject({
    branch: z
      .string()
      .min(1)
      .register(z.globalRegistry, { description: 'The branch name (may use `${{ }}`).' }),
  })
  .register(z.globalRegistry, { description: 'GitHub: the branch exists.' });
const TagCheck = z
  .strictObject({
    tag: z.string().min(1).register(z.globalRegistry, { description: 'The tag name (may use `${{ }}`).' }),
  })
  .register(z.globalRegistry, { description: 'GitHub: the tag exists.' });
const ReleaseCheck = z
  .strictObject({
    release: z
      .string()
      .min(1)
      .register(z.globalRegistry, { description: 'The release tag name (may use `${{ }}`).' }),
  })
  .register(z.globalRegistry, { description: 'GitHub: a release for the tag exists.' });

/** One evidence check; each item names exactly one kind. */
export const CheckSchema = z.union([
  FileCheck,
  CommandCheck,
  OutputCheck,
  GitCheck,
  PullRequestCheck,
  CheckRunCheck,
  IssueCheck,
  BranchCheck,
  TagCheck,
  ReleaseCheck,
]);

export type Check = z.infer<typeof CheckSchema>;
