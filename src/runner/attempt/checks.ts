/**
 * An attempt's evidence: every `validates[]` check, with `${{ }}` expanded in its strings (never in a command),
 * answered locally or through the GitHub API, and the outputs the node promised. Never throws for a failing check.
 */
import { type GitHubEvidence, runGitHubCheck } from '../../evidence/github.js';
import { type CheckInput, isLocalCheck, runLocalCheck } from '../../evidence/local.js';
import { type ExpressionContext, interpolate } from '../../expressions/evaluate.js';
import type { GraphNode } from '../../graph/model.js';
import type { Check } from '../../graph/schema/check.js';
import type { Evidence } from '../../journal/events/fields.js';
import type { AttemptOutcome } from '../../protocol/decide.js';

interface ChecksOptions {
  node: GraphNode;
  /** The expression context the checks see, this attempt's own outputs included. */
  context: ExpressionContext;
  github: GitHubEvidence | undefined;
  input: CheckInput;
}

/** Runs the node's checks in order; each result is evidence, each failed one also a failure. */
export async function runChecks(
  opts: ChecksOptions,
): Promise<{ evidence: Evidence[]; failures: AttemptOutcome['failures'] }> {
  const evidence: Evidence[] = [];
  const failures: AttemptOutcome['failures'] = [];
  for (const check of opts.node.validates) {
    let ev: Evidence;
    try {
      ev = await runCheck(interpolateCheck(check, opts.context), opts.github, opts.input);
    } catch (e) {
      ev = {
        check: Object.keys(check)[0] ?? 'check',
        passed: false,
        observed: `the check could not run: ${(e as Error).message}`,
      };
    }
    evidence.push(ev);
    if (!ev.passed)
      failures.push({
        check: ev.check,
        message: ev.observed,
        ...(typeof ev.excerpt === 'string' ? { excerpt: ev.excerpt } : {}),
        ...(typeof ev.log === 'string' ? { log: ev.log } : {}),
      });
  }
  return { evidence, failures: [...failures, ...missingOutputs(opts.node, opts.input.outputs)] };
}

/** Outputs the node promised, did not set, and no `output` check already reports. */
function missingOutputs(node: GraphNode, outputs: Record<string, string>): AttemptOutcome['failures'] {
  return node.outputs
    .filter(
      (promised) =>
        outputs[promised] === undefined &&
        !node.validates.some((c) => 'output' in c && c.output === promised),
    )
    .map((promised) => ({
      check: `output ${promised}`,
      message: `the node promised output "${promised}" but did not set it`,
    }));
}

/** Expands `${{ }}` in a check's strings (e.g. a branch from a node output); never through a shell. */
function interpolateCheck(check: Check, ctx: ExpressionContext): Check {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.includes('${{') ? interpolate(v, ctx) : v;
    if (Array.isArray(v)) return v.map(walk);
    // A command check is a shell script: never expanded (the loader refuses `${{` there too).
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'command' ? x : walk(x)]));
    return v;
  };
  return walk(check) as Check;
}

async function runCheck(check: Check, github: GitHubEvidence | undefined, input: CheckInput) {
  if (isLocalCheck(check) || !github) return runLocalCheck(check, input);
  try {
    return await runGitHubCheck(check, github);
  } catch (e) {
    const kind = Object.keys(check)[0] ?? 'check';
    return { check: kind, passed: false, observed: `GitHub API error: ${(e as Error).message}` };
  }
}
