/** What a handler sees of one request, and the typed ways it answers. */
import type { IncomingHttpHeaders } from 'node:http';
import { notFound } from './http-error.js';
import type { RateWindow } from './rate-limit.js';
import type { Actor } from './records.js';
import type { RepoState } from './repo-state.js';
import type { LooseOperation, Reply } from './router.js';
import type { GitHubState } from './state.js';
import type { BodyOf, ParamNames, RequestBodyOf, StatusOf } from './types.js';

export interface Urls {
  /** The API root, e.g. `http://127.0.0.1:4010`. */
  readonly api: string;
  /** Where `html_url`s point. */
  readonly web: string;
}

type ReplyFn<Op> = [Op] extends [LooseOperation]
  ? (status: number, body?: unknown, headers?: Record<string, string>) => Reply
  : <S extends StatusOf<Op>>(status: S, body: BodyOf<Op, S>, headers?: Record<string, string>) => Reply;

export interface RouteContext<Op, P extends string> {
  readonly method: string;
  readonly url: URL;
  readonly params: Readonly<Record<ParamNames<P>, string>>;
  readonly query: URLSearchParams;
  /** The parsed JSON body: untrusted, so every field may be missing. */
  readonly body: [Op] extends [LooseOperation] ? Record<string, unknown> : RequestBodyOf<Op>;
  readonly headers: IncomingHttpHeaders;
  readonly actor: Actor;
  readonly state: GitHubState;
  readonly urls: Urls;
  /** The actor's primary rate-limit window, after this request was counted. */
  readonly rate: RateWindow;
  /**
   * For a slow contents write (the like-GitHub model): the branch head when the write began. The write commits
   * on it, and fails when the branch has moved since.
   */
  readonly began?: { readonly head: string | undefined };
  /** The repository named by `{owner}/{repo}`, or a 404 as GitHub answers. */
  repo(): RepoState;
  /** Whether the Accept header asks for the `raw` custom media type. */
  wantsRaw(): boolean;
  /** One page of `items` (`per_page`, `page`) and GitHub's `Link` header for the rest. */
  page<T>(items: readonly T[]): { items: T[]; headers: Record<string, string> };
  reply: ReplyFn<Op>;
}

export interface ContextInput {
  readonly method: string;
  readonly url: URL;
  readonly params: Record<string, string>;
  readonly body: unknown;
  readonly headers: IncomingHttpHeaders;
  readonly actor: Actor;
  readonly state: GitHubState;
  readonly urls: Urls;
  readonly rate: RateWindow;
  readonly began?: { readonly head: string | undefined };
}

const RAW_TYPES = /application\/vnd\.github(\.v3)?\.raw(\+json)?\b/;

export function createContext(input: ContextInput): RouteContext<LooseOperation, string> {
  const accept = String(input.headers.accept ?? '');
  return {
    method: input.method,
    url: input.url,
    params: input.params,
    query: input.url.searchParams,
    body: (input.body ?? {}) as Record<string, unknown>,
    headers: input.headers,
    actor: input.actor,
    state: input.state,
    urls: input.urls,
    rate: input.rate,
    ...(input.began ? { began: input.began } : {}),
    repo() {
      const owner = input.params.owner ?? '';
      const name = input.params.repo ?? '';
      const repo = input.state.findRepo(owner, name);
      if (!repo) throw notFound();
      return repo;
    },
    wantsRaw() {
      return RAW_TYPES.test(accept);
    },
    page(items) {
      return paginate(input.url, input.urls.api, items);
    },
    reply(status, body, headers) {
      return { status, body, ...(headers ? { headers } : {}) };
    },
  };
}

/** GitHub's paging: `per_page` (default 30, at most 100), `page` from 1, and a `Link` header. */
export function paginate<T>(
  url: URL,
  apiRoot: string,
  items: readonly T[],
): { items: T[]; headers: Record<string, string> } {
  const perPage = Math.min(Math.max(Number(url.searchParams.get('per_page')) || 30, 1), 100);
  const page = Math.max(Number(url.searchParams.get('page')) || 1, 1);
  const last = Math.max(Math.ceil(items.length / perPage), 1);
  const link = (target: number, rel: string): string => {
    const next = new URL(url.pathname + url.search, apiRoot);
    next.searchParams.set('per_page', String(perPage));
    next.searchParams.set('page', String(target));
    return `<${next.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page > 1) links.push(link(Math.min(page - 1, last), 'prev'));
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
  if (page > 1) links.push(link(1, 'first'));
  return {
    items: items.slice((page - 1) * perPage, page * perPage),
    headers: links.length > 0 ? { link: links.join(', ') } : {},
  };
}
