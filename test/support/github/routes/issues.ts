/** Issues (pull requests included, as GitHub counts them) and their comments. */
import { invalidRequest, notFound, validationFailed } from '../http-error.js';
import type { IssueRecord } from '../records.js';
import { issue, issueComment } from '../render/issues.js';
import type { RepoState } from '../repo-state.js';
import { type RouteDef, route } from '../router.js';

/** GitHub's limit on an issue or comment body. */
export const BODY_LIMIT = 65536;

function checkBody(body: unknown, resource: 'Issue' | 'IssueComment', required: boolean): string | undefined {
  if (body === undefined || body === null) {
    if (required) throw invalidRequest('"body" wasn\'t supplied.');
    return undefined;
  }
  if (typeof body !== 'string') throw invalidRequest('"body" must be a string.');
  if (required && body.trim() === '') {
    throw validationFailed({ resource, code: 'missing_field', field: 'body' });
  }
  if ([...body].length > BODY_LIMIT) {
    throw validationFailed({
      resource,
      code: 'custom',
      field: 'body',
      message: `body is too long (maximum is ${BODY_LIMIT} characters)`,
    });
  }
  return body;
}

export function findIssue(repo: RepoState, number: string): IssueRecord {
  const found = repo.issue(Number(number));
  if (!found) throw notFound();
  return found;
}

function findComment(repo: RepoState, id: string) {
  const found = repo.comments.get(Number(id));
  if (!found) throw notFound();
  return found;
}

function labelNames(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.map((item) =>
    typeof item === 'string' ? item : String((item as { name?: unknown }).name ?? ''),
  );
}

export const issueRoutes: RouteDef[] = [
  route('get', '/repos/{owner}/{repo}/issues', (ctx) => {
    const repo = ctx.repo();
    const state = ctx.query.get('state') ?? 'open';
    const wanted = (ctx.query.get('labels') ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== '');
    const ascending = ctx.query.get('direction') === 'asc';
    const found = [...repo.issues.values()]
      .filter((record) => state === 'all' || record.state === state)
      .filter((record) => wanted.every((name) => record.labels.some((label) => label.toLowerCase() === name)))
      .sort((a, b) => (ascending ? a.number - b.number : b.number - a.number));
    const { items, headers } = ctx.page(found);
    return ctx.reply(
      200,
      items.map((record) => issue(repo, ctx.urls, record)),
      headers,
    );
  }),

  route('post', '/repos/{owner}/{repo}/issues', (ctx) => {
    const repo = ctx.repo();
    const title = ctx.body.title;
    if (typeof title !== 'string' && typeof title !== 'number')
      throw invalidRequest('"title" wasn\'t supplied.');
    const body = checkBody(ctx.body.body, 'Issue', false);
    const created = repo.addIssue({
      title: String(title),
      ...(body !== undefined ? { body } : {}),
      user: ctx.actor.login,
      labels: labelNames(ctx.body.labels) ?? [],
      assignees: Array.isArray(ctx.body.assignees)
        ? ctx.body.assignees.filter((login): login is string => typeof login === 'string')
        : [],
    });
    return ctx.reply(201, issue(repo, ctx.urls, created));
  }),

  route('get', '/repos/{owner}/{repo}/issues/{issue_number}', (ctx) => {
    const repo = ctx.repo();
    return ctx.reply(200, issue(repo, ctx.urls, findIssue(repo, ctx.params.issue_number)));
  }),

  route('patch', '/repos/{owner}/{repo}/issues/{issue_number}', (ctx) => {
    const repo = ctx.repo();
    const record = findIssue(repo, ctx.params.issue_number);
    const { title, state, state_reason: reason, labels, assignees } = ctx.body;
    const body = checkBody(ctx.body.body, 'Issue', false);
    if (typeof title === 'string') record.title = title;
    if (body !== undefined) record.body = body;
    if (state === 'open' || state === 'closed') {
      if (state !== record.state) {
        record.state = state;
        record.closed_at = state === 'closed' ? repo.env.now() : null;
        record.state_reason =
          state === 'closed' ? (reason === 'not_planned' ? 'not_planned' : 'completed') : 'reopened';
      }
    } else if (state !== undefined) {
      throw validationFailed({ resource: 'Issue', code: 'invalid', field: 'state' });
    }
    const names = labelNames(labels);
    if (names) record.labels = names.map((name) => repo.ensureLabel(name).name);
    if (Array.isArray(assignees))
      record.assignees = assignees.filter((a): a is string => typeof a === 'string');
    record.updated_at = repo.env.now();
    return ctx.reply(200, issue(repo, ctx.urls, record));
  }),

  route('get', '/repos/{owner}/{repo}/issues/{issue_number}/comments', (ctx) => {
    const repo = ctx.repo();
    findIssue(repo, ctx.params.issue_number);
    const since = ctx.query.get('since');
    const found = repo
      .commentsOn(Number(ctx.params.issue_number))
      .filter((comment) => since === null || comment.updated_at >= since);
    const { items, headers } = ctx.page(found);
    return ctx.reply(
      200,
      items.map((comment) => issueComment(repo, ctx.urls, comment)),
      headers,
    );
  }),

  route('post', '/repos/{owner}/{repo}/issues/{issue_number}/comments', (ctx) => {
    const repo = ctx.repo();
    const record = findIssue(repo, ctx.params.issue_number);
    const body = checkBody(ctx.body.body, 'IssueComment', true)!;
    const comment = repo.addComment(record.number, body, ctx.actor.login, { app: ctx.actor.app?.slug });
    const shown = issueComment(repo, ctx.urls, comment);
    return ctx.reply(201, shown, { location: shown.url });
  }),

  route('get', '/repos/{owner}/{repo}/issues/comments/{comment_id}', (ctx) => {
    const repo = ctx.repo();
    return ctx.reply(200, issueComment(repo, ctx.urls, findComment(repo, ctx.params.comment_id)));
  }),

  route('patch', '/repos/{owner}/{repo}/issues/comments/{comment_id}', (ctx) => {
    const repo = ctx.repo();
    const comment = findComment(repo, ctx.params.comment_id);
    comment.body = checkBody(ctx.body.body, 'IssueComment', true)!;
    comment.updated_at = repo.env.now();
    return ctx.reply(200, issueComment(repo, ctx.urls, comment));
  }),

  route('delete', '/repos/{owner}/{repo}/issues/comments/{comment_id}', (ctx) => {
    const repo = ctx.repo();
    const comment = findComment(repo, ctx.params.comment_id);
    repo.comments.delete(comment.id);
    return { status: 204 };
  }),
];
