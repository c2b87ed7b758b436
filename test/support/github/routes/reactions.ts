/**
 * Reactions on issue comments and issues. A user's second identical reaction is not a new one:
 * GitHub answers 200 with the existing reaction (201 only when it is created).
 */
import type { RouteContext } from '../context.js';
import { notFound, validationFailed } from '../http-error.js';
import type { ReactionContent, ReactionRecord } from '../records.js';
import { reaction } from '../render/issues.js';
import type { RepoState } from '../repo-state.js';
import { type Reply, type RouteDef, route } from '../router.js';
import { findIssue } from './issues.js';

const CONTENTS: readonly ReactionContent[] = [
  '+1',
  '-1',
  'laugh',
  'confused',
  'heart',
  'hooray',
  'rocket',
  'eyes',
];

/** Adds (or finds) `login`'s reaction; `created` is false when it was there already. */
function react(
  repo: RepoState,
  list: ReactionRecord[],
  login: string,
  content: unknown,
): { record: ReactionRecord; created: boolean } {
  if (!CONTENTS.includes(content as ReactionContent)) {
    throw validationFailed({ resource: 'Reaction', code: 'invalid', field: 'content' });
  }
  const existing = list.find(
    (item) => item.user.toLowerCase() === login.toLowerCase() && item.content === content,
  );
  if (existing) return { record: existing, created: false };
  const id = repo.env.nextId();
  const record: ReactionRecord = {
    id,
    node_id: `REA_${Buffer.from(`0:${id}`).toString('base64url')}`,
    user: login,
    content: content as ReactionContent,
    created_at: repo.env.now(),
  };
  list.push(record);
  return { record, created: true };
}

function listed(
  ctx: Pick<RouteContext<never, string>, 'query' | 'urls' | 'page'>,
  repo: RepoState,
  list: readonly ReactionRecord[],
): Reply {
  const wanted = ctx.query.get('content');
  const { items, headers } = ctx.page(list.filter((item) => wanted === null || item.content === wanted));
  return { status: 200, body: items.map((item) => reaction(repo.env, ctx.urls, item)), headers };
}

function commentReactions(repo: RepoState, id: string): ReactionRecord[] {
  const comment = repo.comments.get(Number(id));
  if (!comment) throw notFound();
  return comment.reactions;
}

export const reactionRoutes: RouteDef[] = [
  route('get', '/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', (ctx) => {
    const repo = ctx.repo();
    return listed(ctx, repo, commentReactions(repo, ctx.params.comment_id));
  }),

  route('post', '/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', (ctx) => {
    const repo = ctx.repo();
    const { record, created } = react(
      repo,
      commentReactions(repo, ctx.params.comment_id),
      ctx.actor.login,
      ctx.body.content,
    );
    const body = reaction(repo.env, ctx.urls, record);
    return created ? ctx.reply(201, body) : ctx.reply(200, body);
  }),

  route('delete', '/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions/{reaction_id}', (ctx) => {
    const repo = ctx.repo();
    const list = commentReactions(repo, ctx.params.comment_id);
    const index = list.findIndex((item) => item.id === Number(ctx.params.reaction_id));
    if (index < 0) throw notFound();
    list.splice(index, 1);
    return { status: 204 };
  }),

  route('get', '/repos/{owner}/{repo}/issues/{issue_number}/reactions', (ctx) => {
    const repo = ctx.repo();
    return listed(ctx, repo, findIssue(repo, ctx.params.issue_number).reactions);
  }),

  route('post', '/repos/{owner}/{repo}/issues/{issue_number}/reactions', (ctx) => {
    const repo = ctx.repo();
    const issue = findIssue(repo, ctx.params.issue_number);
    const { record, created } = react(repo, issue.reactions, ctx.actor.login, ctx.body.content);
    const body = reaction(repo.env, ctx.urls, record);
    return created ? ctx.reply(201, body) : ctx.reply(200, body);
  }),
];
