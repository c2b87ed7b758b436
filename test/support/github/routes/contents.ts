/**
 * The contents API: read a file (JSON with base64 `content` and blob `sha`, or raw bytes), and
 * write or delete one with the blob sha as compare-and-swap. A write is a real commit on the branch.
 *
 * Atomicity: everything from reading the branch tip to moving it runs synchronously inside one handler, after
 * the body has been read, so Node's event loop serialises concurrent writers. Under the like-GitHub model a write
 * began earlier (`ctx.began`): it commits on the head it began on and fails 409 `is at <sha> but expected <sha>`
 * when another write moved the branch meanwhile, as GitHub's does.
 */
import type { PathEntry } from '../git-objects.js';
import { conflict, HttpError, invalidRequest, notFound } from '../http-error.js';
import { contentEntry, contentFile, fileCommit } from '../render/git.js';
import type { RepoState } from '../repo-state.js';
import { type RouteDef, route } from '../router.js';

const normalise = (path: string): string => path.replace(/^\/+|\/+$/g, '');

/** Strict base64, as GitHub checks it (whitespace allowed). */
export function decodeBase64(text: string): Buffer | undefined {
  const compact = text.replace(/\s+/g, '');
  if (compact.length % 4 === 1 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return undefined;
  return Buffer.from(compact, 'base64');
}

/** Raw bytes as GitHub serves them: text when the bytes are UTF-8 text, else octet-stream. */
export function rawReply(content: Buffer) {
  const text = !content.includes(0) && Buffer.from(content.toString('utf8'), 'utf8').equals(content);
  return {
    status: 200,
    raw: content,
    contentType: text ? 'text/plain; charset=utf-8' : 'application/octet-stream',
    headers: { 'x-github-media-type': 'github.v3; param=raw' },
  };
}

function person(
  field: 'author' | 'committer',
  value: unknown,
): { name: string; email: string; date?: string } | undefined {
  if (value === undefined) return undefined;
  const given = value as { name?: unknown; email?: unknown; date?: unknown };
  if (typeof given.name !== 'string' || typeof given.email !== 'string') {
    throw invalidRequest(`"name" and "email" are required in "${field}".`);
  }
  return {
    name: given.name,
    email: given.email,
    ...(typeof given.date === 'string' ? { date: given.date } : {}),
  };
}

interface WriteTarget {
  readonly branch: string;
  readonly parent: string | undefined;
  readonly current: PathEntry | undefined;
  /** Where the branch is now (the parent, unless the write began on an older head). */
  readonly head: string | undefined;
}

/** The branch name a write names, or the default branch. */
export function writeBranch(repo: RepoState, branchGiven: unknown): string {
  return typeof branchGiven === 'string' && branchGiven !== '' ? branchGiven : repo.defaultBranch;
}

/**
 * The branch to write to and what is at the path on the head the write began on (`began`, the like-GitHub
 * model's slow write; else the head now); 404 for a missing branch.
 */
function target(
  repo: RepoState,
  branchGiven: unknown,
  path: string,
  began: { head: string | undefined } | undefined,
): WriteTarget {
  const branch = writeBranch(repo, branchGiven);
  const head = repo.branchSha(branch);
  const parent = began ? began.head : head;
  if (parent === undefined && !repo.isEmpty()) throw notFound(`Branch ${branch} not found`);
  const tree = parent ? repo.git.commit(parent)?.tree : undefined;
  return { branch, parent, head, current: tree ? repo.git.lookup(tree, path) : undefined };
}

/** GitHub's answer when the branch moved while the write was carried out: it commits on the head it read. */
function checkHead(found: WriteTarget): void {
  if (found.head !== found.parent) throw conflict(`is at ${found.head} but expected ${found.parent}`);
}

/** GitHub's compare-and-swap: 422 when an existing file's sha is missing, 409 when it is stale. */
function checkSha(path: string, current: PathEntry | undefined, sha: unknown): void {
  if (!current) return;
  if (current.type === 'tree') throw invalidRequest(`"${path}" is a directory.`);
  if (typeof sha !== 'string' || sha === '') throw invalidRequest('"sha" wasn\'t supplied.');
  if (sha !== current.sha) throw conflict(`${path} does not match ${sha}`);
}

export const contentRoutes: RouteDef[] = [
  route(
    'get',
    '/repos/{owner}/{repo}/contents/{path}',
    (ctx) => {
      const repo = ctx.repo();
      if (repo.isEmpty()) throw notFound('This repository is empty.');
      const ref = ctx.query.get('ref') || repo.defaultBranch;
      const commitSha = repo.resolveCommit(ref);
      if (!commitSha) throw notFound(`No commit found for the ref ${ref}`);
      const path = normalise(ctx.params.path);
      const entry = repo.git.lookup(repo.git.commit(commitSha)!.tree, path);
      if (!entry) throw notFound();
      if (entry.type === 'tree') {
        const listing = repo.git
          .walk(entry.sha, false, path)
          .map((item) => contentEntry(repo, ctx.urls, item, ref));
        return ctx.reply(200, listing);
      }
      if (entry.type === 'blob' && ctx.wantsRaw()) return rawReply(repo.git.blob(entry.sha)!.content);
      return ctx.reply(200, contentFile(repo, ctx.urls, entry, ref));
    },
    { greedy: 'path', optionalTail: true, byName: true },
  ),

  route(
    'put',
    '/repos/{owner}/{repo}/contents/{path}',
    (ctx) => {
      const repo = ctx.repo();
      const path = normalise(ctx.params.path);
      const { message, content, sha, branch: branchGiven } = ctx.body;
      if (typeof message !== 'string' || message === '') throw invalidRequest('"message" wasn\'t supplied.');
      if (typeof content !== 'string') throw invalidRequest('"content" wasn\'t supplied.');
      const bytes = decodeBase64(content);
      if (!bytes) throw new HttpError(422, 'content is not valid Base64');
      const author = person('author', ctx.body.author);
      const committer = person('committer', ctx.body.committer);

      // From here to the ref update nothing awaits: this is the compare-and-swap.
      const found = target(repo, branchGiven, path, ctx.began);
      const { branch, parent, current } = found;
      checkSha(path, current, sha);
      checkHead(found);
      const blob = repo.git.putBlob(bytes);
      const commit = repo.makeCommit(
        parent,
        new Map([[path, { mode: '100644', type: 'blob', sha: blob.sha }]]),
        {
          message,
          actor: ctx.actor.login,
          ...(author ? { author } : {}),
          ...(committer ? { committer } : {}),
        },
      );
      repo.refs.set(`refs/heads/${branch}`, commit.sha);

      const entry: PathEntry = { path, mode: '100644', type: 'blob', sha: blob.sha };
      const body = fileCommit(repo, ctx.urls, entry, branch, commit);
      return current ? ctx.reply(200, body) : ctx.reply(201, body);
    },
    { greedy: 'path', slowWrite: true },
  ),

  route(
    'delete',
    '/repos/{owner}/{repo}/contents/{path}',
    (ctx) => {
      const repo = ctx.repo();
      const path = normalise(ctx.params.path);
      const { message, sha, branch: branchGiven } = ctx.body;
      if (typeof message !== 'string' || message === '') throw invalidRequest('"message" wasn\'t supplied.');
      if (typeof sha !== 'string' || sha === '') throw invalidRequest('"sha" wasn\'t supplied.');
      const found = target(repo, branchGiven, path, ctx.began);
      const { branch, parent, current } = found;
      if (!current) throw notFound();
      checkSha(path, current, sha);
      checkHead(found);
      const commit = repo.makeCommit(parent, new Map([[path, null]]), { message, actor: ctx.actor.login });
      repo.refs.set(`refs/heads/${branch}`, commit.sha);
      return ctx.reply(200, fileCommit(repo, ctx.urls, null, branch, commit));
    },
    { greedy: 'path', slowWrite: true },
  ),
];
