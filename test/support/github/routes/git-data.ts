/**
 * The git data API: refs, blobs, trees, commits and annotated tags. Enough to build an orphan
 * branch (blob, tree without base, commit without parents, new ref) and to move refs with
 * fast-forward checks.
 */
import type { EntryMode, EntryType, TreeChange } from '../git-objects.js';
import { conflict, invalidRequest, notFound, unprocessable } from '../http-error.js';
import { blob, gitCommit, gitRef, gitTag, gitTree } from '../render/git.js';
import type { RepoState } from '../repo-state.js';
import { looseRoute, type RouteDef, route } from '../router.js';
import { rawReply } from './contents.js';

const MODES: readonly EntryMode[] = ['100644', '100755', '040000', '160000', '120000'];
const TYPES: readonly EntryType[] = ['blob', 'tree', 'commit'];

/** GitHub answers 409 on the git data API until a repository has a first commit. */
function nonEmpty(repo: RepoState): RepoState {
  if (repo.isEmpty()) throw conflict('Git Repository is empty.');
  return repo;
}

/**
 * The ref a URL names: `heads/main` is `refs/heads/main`. GitHub always prefixes, so a URL that
 * already says `refs/heads/main` names `refs/refs/heads/main`, which does not exist.
 */
const fullRef = (ref: string): string => `refs/${ref}`;

/** Git cannot hold both `refs/heads/a` and `refs/heads/a/b`. */
const clashes = (repo: RepoState, ref: string): boolean =>
  [...repo.refs.keys()].some((existing) => existing.startsWith(`${ref}/`) || ref.startsWith(`${existing}/`));

const sortedRefs = (repo: RepoState): [string, string][] =>
  [...repo.refs].sort(([a], [b]) => (a < b ? -1 : 1));

function requireString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw invalidRequest(`"${field}" wasn't supplied.`);
  return value;
}

function gitPerson(value: unknown): { name?: string; email?: string; date?: string } | undefined {
  if (value === undefined || value === null || typeof value !== 'object') return undefined;
  const given = value as Record<string, unknown>;
  return {
    ...(typeof given.name === 'string' ? { name: given.name } : {}),
    ...(typeof given.email === 'string' ? { email: given.email } : {}),
    ...(typeof given.date === 'string' ? { date: given.date } : {}),
  };
}

export const gitDataRoutes: RouteDef[] = [
  route(
    'get',
    '/repos/{owner}/{repo}/git/ref/{ref}',
    (ctx) => {
      const repo = nonEmpty(ctx.repo());
      const ref = fullRef(ctx.params.ref);
      const sha = repo.refs.get(ref);
      if (sha === undefined) throw notFound();
      return ctx.reply(200, gitRef(repo, ctx.urls, ref, sha));
    },
    { greedy: 'ref', byName: true },
  ),

  route(
    'get',
    '/repos/{owner}/{repo}/git/matching-refs/{ref}',
    (ctx) => {
      const repo = nonEmpty(ctx.repo());
      const prefix = ctx.params.ref ? fullRef(ctx.params.ref) : 'refs/';
      const refs = sortedRefs(repo).filter(([ref]) => ref.startsWith(prefix));
      return ctx.reply(
        200,
        refs.map(([ref, sha]) => gitRef(repo, ctx.urls, ref, sha)),
      );
    },
    { greedy: 'ref', optionalTail: true, byName: true },
  ),

  // The older form: one ref when the name is exact, an array of refs that start with it otherwise.
  looseRoute(
    'get',
    '/repos/{owner}/{repo}/git/refs/{ref}',
    (ctx) => {
      const repo = nonEmpty(ctx.repo());
      if (!ctx.params.ref)
        return ctx.reply(
          200,
          sortedRefs(repo).map(([ref, sha]) => gitRef(repo, ctx.urls, ref, sha)),
        );
      const ref = fullRef(ctx.params.ref);
      const exact = repo.refs.get(ref);
      if (exact !== undefined) return ctx.reply(200, gitRef(repo, ctx.urls, ref, exact));
      const matching = sortedRefs(repo).filter(([name]) => name.startsWith(ref));
      if (matching.length === 0) throw notFound();
      return ctx.reply(
        200,
        matching.map(([name, sha]) => gitRef(repo, ctx.urls, name, sha)),
      );
    },
    { greedy: 'ref', optionalTail: true, byName: true },
  ),

  route('post', '/repos/{owner}/{repo}/git/refs', (ctx) => {
    const repo = nonEmpty(ctx.repo());
    const ref = requireString(ctx.body.ref, 'ref');
    const sha = requireString(ctx.body.sha, 'sha');
    if (ref.split('/').length < 3) {
      throw unprocessable('Reference name must contain at least three slash-separated components.');
    }
    if (!ref.startsWith('refs/') || /\.\.|\/\/|@\{|[\s~^:?*[\\]|\/$|\.$|\.lock$/.test(ref)) {
      throw unprocessable(`${ref} is not a valid ref name.`);
    }
    if (repo.refs.has(ref)) throw unprocessable('Reference already exists');
    if (!repo.git.has(sha)) throw unprocessable('Object does not exist');
    if (clashes(repo, ref)) throw unprocessable('Reference update failed');
    repo.refs.set(ref, sha);
    const body = gitRef(repo, ctx.urls, ref, sha);
    return ctx.reply(201, body, { location: body.url });
  }),

  route(
    'patch',
    '/repos/{owner}/{repo}/git/refs/{ref}',
    (ctx) => {
      const repo = nonEmpty(ctx.repo());
      const ref = fullRef(ctx.params.ref);
      const sha = requireString(ctx.body.sha, 'sha');
      const current = repo.refs.get(ref);
      if (current === undefined) throw unprocessable('Reference does not exist');
      if (!repo.git.has(sha)) throw unprocessable('Object does not exist');
      const forced = ctx.body.force === true;
      if (!forced && current !== sha && !repo.git.isAncestor(current, sha)) {
        throw unprocessable('Update is not a fast forward');
      }
      repo.refs.set(ref, sha);
      return ctx.reply(200, gitRef(repo, ctx.urls, ref, sha));
    },
    { greedy: 'ref', byName: true },
  ),

  route(
    'delete',
    '/repos/{owner}/{repo}/git/refs/{ref}',
    (ctx) => {
      const repo = nonEmpty(ctx.repo());
      const ref = fullRef(ctx.params.ref);
      if (!repo.refs.delete(ref)) throw unprocessable('Reference does not exist');
      return { status: 204 };
    },
    { greedy: 'ref' },
  ),

  route('post', '/repos/{owner}/{repo}/git/blobs', (ctx) => {
    const repo = nonEmpty(ctx.repo());
    const { content, encoding = 'utf-8' } = ctx.body;
    if (typeof content !== 'string') throw invalidRequest('"content" wasn\'t supplied.');
    if (encoding !== 'utf-8' && encoding !== 'utf8' && encoding !== 'base64') {
      throw invalidRequest(`encoding must be "utf-8" or "base64", not ${JSON.stringify(encoding)}.`);
    }
    const stored = repo.git.putBlob(Buffer.from(content, encoding === 'base64' ? 'base64' : 'utf8'));
    const url = `${ctx.urls.api}/repos/${repo.fullName}/git/blobs/${stored.sha}`;
    return ctx.reply(201, { url, sha: stored.sha }, { location: url });
  }),

  route('get', '/repos/{owner}/{repo}/git/blobs/{file_sha}', (ctx) => {
    const repo = nonEmpty(ctx.repo());
    const found = repo.git.blob(ctx.params.file_sha);
    if (!found) throw notFound();
    if (ctx.wantsRaw()) return rawReply(found.content);
    return ctx.reply(200, blob(repo, ctx.urls, found.sha, found.content));
  }),

  route('post', '/repos/{owner}/{repo}/git/trees', (ctx) => {
    const repo = nonEmpty(ctx.repo());
    const { tree, base_tree: baseTree } = ctx.body;
    if (!Array.isArray(tree)) throw invalidRequest('"tree" wasn\'t supplied.');
    if (baseTree !== undefined && !repo.git.tree(baseTree))
      throw unprocessable('base_tree is not a valid tree oid');
    const changes = new Map<string, TreeChange>();
    for (const item of tree) {
      const { path, mode, type, sha, content } = item;
      if (typeof path !== 'string' || path === '') throw invalidRequest('"path" wasn\'t supplied in "tree".');
      if (!MODES.includes(mode as EntryMode)) throw invalidRequest(`tree.mode ${String(mode)} is not valid.`);
      if (!TYPES.includes(type as EntryType)) throw invalidRequest(`tree.type ${String(type)} is not valid.`);
      if (sha === null) {
        changes.set(path, null);
        continue;
      }
      if (typeof content === 'string') {
        changes.set(path, {
          mode: mode as EntryMode,
          type: 'blob',
          sha: repo.git.putBlob(Buffer.from(content)).sha,
        });
        continue;
      }
      if (typeof sha !== 'string') throw invalidRequest('Must supply either tree.sha or tree.content.');
      const object = repo.git.get(sha);
      if (type !== 'commit' && object?.type !== type)
        throw unprocessable(`tree.sha ${sha} is not a valid ${type}`);
      changes.set(path, { mode: mode as EntryMode, type: type as EntryType, sha });
    }
    const built = repo.git.buildTree(baseTree, changes);
    const body = gitTree(repo, ctx.urls, built, false);
    return ctx.reply(201, body, { location: body.url ?? '' });
  }),

  route(
    'get',
    '/repos/{owner}/{repo}/git/trees/{tree_sha}',
    (ctx) => {
      const repo = nonEmpty(ctx.repo());
      const given = ctx.params.tree_sha;
      const commitSha = repo.git.commit(given) ? given : repo.resolveCommit(given);
      const treeSha = repo.git.tree(given) ? given : commitSha ? repo.git.commit(commitSha)?.tree : undefined;
      const tree = treeSha ? repo.git.tree(treeSha) : undefined;
      if (!tree) throw notFound();
      // GitHub turns recursion on for any value of `recursive`, even "false" or "0".
      return ctx.reply(200, gitTree(repo, ctx.urls, tree, ctx.query.has('recursive')));
    },
    { byName: true },
  ),

  route('post', '/repos/{owner}/{repo}/git/commits', (ctx) => {
    const repo = nonEmpty(ctx.repo());
    const message = ctx.body.message;
    if (typeof message !== 'string') throw invalidRequest('"message" wasn\'t supplied.');
    const tree = requireString(ctx.body.tree, 'tree');
    if (!repo.git.tree(tree)) throw unprocessable('Tree SHA does not exist');
    const parents = ctx.body.parents ?? [];
    if (!Array.isArray(parents)) throw invalidRequest('"parents" must be an array.');
    for (const parent of parents) {
      if (!repo.git.commit(parent))
        throw unprocessable('Parent SHA does not exist or is not a commit object');
    }
    const authorGiven = gitPerson(ctx.body.author);
    const committerGiven = gitPerson(ctx.body.committer);
    const made = repo.git.putCommit({
      tree,
      parents,
      author: repo.person(ctx.actor.login, authorGiven ?? committerGiven),
      committer: repo.person(ctx.actor.login, committerGiven ?? authorGiven),
      message,
    });
    const body = gitCommit(repo, ctx.urls, made);
    return ctx.reply(201, body, { location: body.url });
  }),

  route('get', '/repos/{owner}/{repo}/git/commits/{commit_sha}', (ctx) => {
    const repo = nonEmpty(ctx.repo());
    const found = repo.git.commit(ctx.params.commit_sha);
    if (!found) throw notFound();
    return ctx.reply(200, gitCommit(repo, ctx.urls, found));
  }),

  route('post', '/repos/{owner}/{repo}/git/tags', (ctx) => {
    const repo = nonEmpty(ctx.repo());
    const tagName = requireString(ctx.body.tag, 'tag');
    const message = typeof ctx.body.message === 'string' ? ctx.body.message : '';
    const object = requireString(ctx.body.object, 'object');
    const type = ctx.body.type;
    if (type !== 'commit' && type !== 'tree' && type !== 'blob')
      throw invalidRequest('"type" wasn\'t supplied.');
    if (repo.git.get(object)?.type !== type) throw unprocessable('Object does not exist');
    const made = repo.git.putTag({
      tag: tagName,
      message,
      object: { sha: object, type },
      tagger: repo.person(ctx.actor.login, gitPerson(ctx.body.tagger)),
    });
    const body = gitTag(repo, ctx.urls, made);
    return ctx.reply(201, body, { location: body.url });
  }),

  route('get', '/repos/{owner}/{repo}/git/tags/{tag_sha}', (ctx) => {
    const repo = nonEmpty(ctx.repo());
    const found = repo.git.tag(ctx.params.tag_sha);
    if (!found) throw notFound();
    return ctx.reply(200, gitTag(repo, ctx.urls, found));
  }),
];
