/**
 * Routes are declared with GitHub's own path templates (`/repos/{owner}/{repo}/contents/{path}`),
 * so the compiler checks each against the published API and types its replies.
 */
import type { paths } from '@octokit/openapi-types';
import type { RouteContext } from './context.js';
import type { ApiPath, Method, OperationOf } from './types.js';

/** What a handler answers: JSON (`body`), raw bytes (`raw`) or nothing (204). */
export interface Reply {
  readonly status: number;
  readonly body?: unknown;
  readonly raw?: Buffer;
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Marks a route that GitHub serves but its OpenAPI description no longer lists. */
export interface LooseOperation {
  readonly loose: true;
}

export type Handler<Op, P extends string> = (ctx: RouteContext<Op, P>) => Reply;

export interface RouteOptions {
  /** A parameter that may hold slashes (a file path, a ref, a branch). */
  readonly greedy?: string;
  /** The greedy parameter may be absent (`/contents` lists the root). */
  readonly optionalTail?: boolean;
  /** `token` (default), `jwt` for endpoints only a GitHub App's JWT may call, `basic` for the OAuth client's. */
  readonly auth?: 'token' | 'jwt' | 'basic';
  /** Counts against the rate limit (all but `/rate_limit`). */
  readonly counted?: boolean;
  /** A read that may name a branch: the like-GitHub model may answer it from the past (`load-model.ts`). */
  readonly byName?: boolean;
  /** A contents write: the like-GitHub model makes it take time and commit on the head it began on. */
  readonly slowWrite?: boolean;
}

export interface RouteDef {
  readonly method: string;
  readonly template: string;
  /** `GET /repos/{owner}/{repo}/contents/{path}`: how requests are grouped in the log. */
  readonly kind: string;
  readonly names: readonly string[];
  readonly pattern: RegExp;
  readonly options: RouteOptions;
  readonly handler: Handler<never, string>;
}

/** Parameters that are always numbers: a path segment that is not one does not match. */
const NUMERIC = new Set([
  'issue_number',
  'pull_number',
  'comment_id',
  'reaction_id',
  'check_run_id',
  'run_id',
  'attempt_number',
  'job_id',
  'release_id',
  'installation_id',
  'delivery_id',
  'artifact_id',
]);

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compile(template: string, options: RouteOptions): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  let source = '';
  for (const segment of template.split('/').slice(1)) {
    const parts = segment.split(/(\{[^}]+\})/).filter((part) => part !== '');
    let piece = '';
    let tailOnly = false;
    for (const part of parts) {
      const name = /^\{([^}]+)\}$/.exec(part)?.[1];
      if (name === undefined) {
        piece += escapeRegExp(part);
        continue;
      }
      names.push(name);
      if (name === options.greedy) {
        piece += options.optionalTail ? '(.*)' : '(.+)';
        tailOnly = options.optionalTail === true && parts.length === 1;
      } else if (NUMERIC.has(name)) piece += '(\\d+)';
      else piece += '([^/]+)';
    }
    source += tailOnly ? `(?:/${piece})?` : `/${piece}`;
  }
  return { pattern: new RegExp(`^${source}/?$`), names };
}

/** A route for one of GitHub's documented operations. */
export function route<P extends ApiPath, M extends Method & keyof paths[P]>(
  method: M,
  template: P,
  handler: Handler<OperationOf<P, M>, P>,
  options: RouteOptions = {},
): RouteDef {
  return define(method, template, handler as Handler<never, string>, options);
}

/** A route GitHub serves that its OpenAPI description omits (replies are not type-checked). */
export function looseRoute<P extends string>(
  method: Method,
  template: P,
  handler: Handler<LooseOperation, P>,
  options: RouteOptions = {},
): RouteDef {
  return define(method, template, handler as Handler<never, string>, options);
}

function define(
  method: Method,
  template: string,
  handler: Handler<never, string>,
  options: RouteOptions,
): RouteDef {
  const { pattern, names } = compile(template, options);
  const upper = method.toUpperCase();
  return { method: upper, template, kind: `${upper} ${template}`, names, pattern, options, handler };
}

function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export interface RouteMatch {
  readonly route: RouteDef;
  readonly params: Record<string, string>;
}

/** The first route whose method and template fit; path parameters are URL-decoded. */
export function matchRoute(
  routes: readonly RouteDef[],
  method: string,
  pathname: string,
): RouteMatch | undefined {
  for (const candidate of routes) {
    if (candidate.method !== method) continue;
    const found = candidate.pattern.exec(pathname);
    if (!found) continue;
    const params: Record<string, string> = {};
    candidate.names.forEach((name, index) => {
      params[name] = decodeParam(found[index + 1] ?? '');
    });
    return { route: candidate, params };
  }
  return undefined;
}
