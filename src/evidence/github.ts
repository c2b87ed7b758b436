import type { GitHubClient, RepoRef } from '../github/client.js';
import { statusOf } from '../github/status.js';
import type { Check } from '../graph/schema/check.js';
import type { Evidence } from '../journal/events/fields.js';
import { checkRunCheck } from './check-run.js';

/** What GitHub checks need: a client, the repository, and the run's subject (issue or pull request number). */
export interface GitHubEvidence {
  octokit: GitHubClient;
  repo: RepoRef;
  subject?: number;
}

async function exists(fn: () => Promise<unknown>): Promise<boolean> {
  try {
    await fn();
    return true;
  } catch (e) {
    if (statusOf(e) === 404) return false;
    throw e;
  }
}

type Spec<K extends string> = Extract<Check, Record<K, unknown>> extends Record<K, infer S> ? S : never;

/** A check whose name, head or ref interpolated to nothing fails here, before any request. */
function emptyTarget(check: Check): Evidence | undefined {
  const named =
    'branch' in check
      ? check.branch
      : 'tag' in check
        ? check.tag
        : 'release' in check
          ? check.release
          : undefined;
  const hint = '(did its expression name an output that was not set?)';
  if (named !== undefined && !named.trim()) {
    const kind = Object.keys(check)[0] ?? 'check';
    return { check: kind, passed: false, observed: `the ${kind} name is empty ${hint}` };
  }
  if ('pull_request' in check && !check.pull_request.head.trim())
    return { check: 'pull_request', passed: false, observed: `the head branch is empty ${hint}` };
  if ('check' in check && !check.check.ref.trim())
    return { check: 'check', passed: false, observed: `the ref is empty ${hint}` };
  return undefined;
}

async function pullRequestCheck(spec: Spec<'pull_request'>, gh: GitHubEvidence): Promise<Evidence> {
  const { octokit, repo } = gh;
  const want = spec.state ?? 'open_or_merged';
  const name = `pull_request head ${spec.head}${spec.base ? ` base ${spec.base}` : ''} ${want}${spec.label ? ` label ${spec.label}` : ''}`;
  const { data } = await octokit.rest.pulls.list({
    ...repo,
    head: `${repo.owner}:${spec.head}`,
    state: 'all',
    per_page: 20,
    ...(spec.base ? { base: spec.base } : {}),
  });
  const stateOf = (p: (typeof data)[number]) => (p.merged_at ? 'merged' : p.state);
  const ok = data.filter((p) => {
    const st = stateOf(p);
    const stateOk = want === 'open_or_merged' ? st === 'open' || st === 'merged' : st === want;
    const labelOk = !spec.label || p.labels.some((l) => l.name === spec.label);
    return stateOk && labelOk;
  });
  const shown = (ok[0] ?? data[0]) as (typeof data)[number] | undefined;
  return {
    check: name,
    passed: ok.length > 0,
    observed: shown
      ? `#${shown.number} ${stateOf(shown)} ${shown.html_url} head ${shown.head.sha.slice(0, 12)}${ok.length ? '' : ' (not as required)'}`
      : `no pull request for head ${spec.head}`,
  };
}

async function issueCheck(spec: Spec<'issue'>, gh: GitHubEvidence): Promise<Evidence> {
  const { octokit, repo } = gh;
  const number = spec.number !== undefined ? Number(spec.number) : gh.subject;
  if (!number || !Number.isInteger(number))
    return {
      check: 'issue',
      passed: false,
      observed: 'no issue number: the run has no subject; give issue.number',
    };
  const { data } = await octokit.rest.issues.get({ ...repo, issue_number: number });
  const parts: string[] = [`#${number} ${data.state}`];
  let passed = !spec.state || data.state === spec.state;
  if (spec.label) {
    const has = data.labels.some((l) => (typeof l === 'string' ? l : l.name) === spec.label);
    parts.push(has ? `label ${spec.label}` : `no label ${spec.label}`);
    passed &&= has;
  }
  if (spec.comment) {
    const re = new RegExp(spec.comment);
    const comments = await octokit.paginate(octokit.rest.issues.listComments, {
      ...repo,
      issue_number: number,
      per_page: 100,
    });
    // interlock's own comments (progress, attention, stuck) name nodes and commands: never evidence.
    const hit = comments.find((c) => !c.body?.includes('<!-- interlock:') && re.test(c.body ?? ''));
    parts.push(hit ? `comment ${hit.html_url}` : `no comment matching /${spec.comment}/`);
    passed &&= Boolean(hit);
  }
  return {
    check: `issue #${number}${spec.state ? ` ${spec.state}` : ''}`,
    passed,
    observed: `${parts.join(', ')} ${data.html_url}`,
  };
}

/** branch, tag and release: a thing that exists under a name, or does not. */
async function namedRefCheck(check: Check, gh: GitHubEvidence): Promise<Evidence | undefined> {
  const { octokit, repo } = gh;
  if ('branch' in check) {
    const found = await exists(() => octokit.rest.repos.getBranch({ ...repo, branch: check.branch }));
    return {
      check: `branch ${check.branch}`,
      passed: found,
      observed: found ? `branch ${check.branch} exists` : `no branch ${check.branch}`,
    };
  }
  if ('tag' in check) {
    let sha = '';
    const found = await exists(async () => {
      const r = await octokit.rest.git.getRef({ ...repo, ref: `tags/${check.tag}` });
      sha = r.data.object.sha;
    });
    return {
      check: `tag ${check.tag}`,
      passed: found,
      observed: found ? `tag ${check.tag} → ${sha.slice(0, 12)}` : `no tag ${check.tag}`,
    };
  }
  if ('release' in check) {
    let url = '';
    const found = await exists(async () => {
      const r = await octokit.rest.repos.getReleaseByTag({ ...repo, tag: check.release });
      url = r.data.html_url;
    });
    return {
      check: `release ${check.release}`,
      passed: found,
      observed: found ? `release ${url}` : `no release for tag ${check.release}`,
    };
  }
  return undefined;
}

/** Runs one check through the GitHub API and says what it observed (URLs, shas, states). */
export async function runGitHubCheck(check: Check, gh: GitHubEvidence): Promise<Evidence> {
  const empty = emptyTarget(check);
  if (empty) return empty;
  if ('pull_request' in check) return pullRequestCheck(check.pull_request, gh);
  if ('check' in check) return checkRunCheck(check.check, gh);
  if ('issue' in check) return issueCheck(check.issue, gh);
  return (
    (await namedRefCheck(check, gh)) ?? {
      check: Object.keys(check)[0] ?? 'check',
      passed: false,
      observed: 'not a GitHub check',
    }
  );
}
