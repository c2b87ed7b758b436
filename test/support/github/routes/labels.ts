/** Repository labels, and labels on an issue or pull request. */
import { invalidRequest, notFound, validationFailed } from '../http-error.js';
import type { IssueRecord } from '../records.js';
import { issueLabels, label } from '../render/issues.js';
import type { RepoState } from '../repo-state.js';
import { type RouteDef, route } from '../router.js';
import { findIssue } from './issues.js';

/** Label names from `{"labels": [...]}` or a bare array body; items may be strings or `{name}`. */
function namesFrom(body: unknown): string[] {
  const list = Array.isArray(body) ? body : (body as { labels?: unknown }).labels;
  if (!Array.isArray(list)) throw invalidRequest('"labels" wasn\'t supplied.');
  return list.map((item) => {
    const name = typeof item === 'string' ? item : (item as { name?: unknown } | null)?.name;
    if (typeof name !== 'string' || name.trim() === '') {
      throw validationFailed({ resource: 'Label', code: 'invalid', field: 'name' });
    }
    return name;
  });
}

function addLabels(repo: RepoState, issue: IssueRecord, names: readonly string[]): void {
  for (const name of names) {
    const record = repo.ensureLabel(name);
    if (!issue.labels.some((existing) => existing.toLowerCase() === name.toLowerCase()))
      issue.labels.push(record.name);
  }
  issue.updated_at = repo.env.now();
}

export const labelRoutes: RouteDef[] = [
  route('get', '/repos/{owner}/{repo}/issues/{issue_number}/labels', (ctx) => {
    const repo = ctx.repo();
    const { items, headers } = ctx.page(
      issueLabels(repo, ctx.urls, findIssue(repo, ctx.params.issue_number)),
    );
    return ctx.reply(200, items, headers);
  }),

  route('post', '/repos/{owner}/{repo}/issues/{issue_number}/labels', (ctx) => {
    const repo = ctx.repo();
    const issue = findIssue(repo, ctx.params.issue_number);
    addLabels(repo, issue, namesFrom(ctx.body));
    return ctx.reply(200, issueLabels(repo, ctx.urls, issue));
  }),

  route('put', '/repos/{owner}/{repo}/issues/{issue_number}/labels', (ctx) => {
    const repo = ctx.repo();
    const issue = findIssue(repo, ctx.params.issue_number);
    const names = namesFrom(ctx.body);
    issue.labels = [];
    addLabels(repo, issue, names);
    return ctx.reply(200, issueLabels(repo, ctx.urls, issue));
  }),

  route('delete', '/repos/{owner}/{repo}/issues/{issue_number}/labels', (ctx) => {
    const repo = ctx.repo();
    const issue = findIssue(repo, ctx.params.issue_number);
    issue.labels = [];
    issue.updated_at = repo.env.now();
    return { status: 204 };
  }),

  route('delete', '/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}', (ctx) => {
    const repo = ctx.repo();
    const issue = findIssue(repo, ctx.params.issue_number);
    const index = issue.labels.findIndex((name) => name.toLowerCase() === ctx.params.name.toLowerCase());
    if (index < 0) throw notFound('Label does not exist');
    issue.labels.splice(index, 1);
    issue.updated_at = repo.env.now();
    return ctx.reply(200, issueLabels(repo, ctx.urls, issue));
  }),

  route('get', '/repos/{owner}/{repo}/labels', (ctx) => {
    const repo = ctx.repo();
    const { items, headers } = ctx.page([...repo.labels.values()]);
    return ctx.reply(
      200,
      items.map((record) => label(repo, ctx.urls, record)),
      headers,
    );
  }),

  route('post', '/repos/{owner}/{repo}/labels', (ctx) => {
    const repo = ctx.repo();
    const { name, color, description } = ctx.body;
    if (typeof name !== 'string' || name.trim() === '') throw invalidRequest('"name" wasn\'t supplied.');
    if (repo.label(name))
      throw validationFailed({ resource: 'Label', code: 'already_exists', field: 'name' });
    const shade = typeof color === 'string' ? color.replace(/^#/, '') : 'ededed';
    if (!/^[0-9a-fA-F]{6}$/.test(shade))
      throw validationFailed({ resource: 'Label', code: 'invalid', field: 'color' });
    const record = repo.ensureLabel(
      name,
      shade.toLowerCase(),
      typeof description === 'string' ? description : null,
    );
    const body = label(repo, ctx.urls, record);
    return ctx.reply(201, body, { location: body.url });
  }),

  route('get', '/repos/{owner}/{repo}/labels/{name}', (ctx) => {
    const repo = ctx.repo();
    const record = repo.label(ctx.params.name);
    if (!record) throw notFound();
    return ctx.reply(200, label(repo, ctx.urls, record));
  }),

  route('delete', '/repos/{owner}/{repo}/labels/{name}', (ctx) => {
    const repo = ctx.repo();
    const record = repo.label(ctx.params.name);
    if (!record) throw notFound();
    repo.labels.delete(record.name.toLowerCase());
    for (const issue of repo.issues.values()) {
      issue.labels = issue.labels.filter((name) => name.toLowerCase() !== record.name.toLowerCase());
    }
    return { status: 204 };
  }),
];
