/**
 * Compile-time ties between the local server and GitHub's published REST description
 * (`@octokit/openapi-types`): a route is declared by one of GitHub's own path templates, and its
 * replies are checked against that operation's documented statuses and JSON bodies.
 */
import type { components, paths } from '@octokit/openapi-types';

export type Schemas = components['schemas'];
export type Schema<Name extends keyof Schemas> = Schemas[Name];

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type ApiPath = keyof paths;

/** The operation GitHub documents for `method` on `path`. */
export type OperationOf<P extends ApiPath, M extends Method> = paths[P] extends { [K in M]: infer Op }
  ? Op
  : never;

type ResponsesOf<Op> = Op extends { responses: infer R } ? R : never;

/** Documented statuses of an operation. */
export type StatusOf<Op> = keyof ResponsesOf<Op> & number;

/** The JSON body documented for one status (undefined for a bodiless status such as 204). */
export type BodyOf<Op, S extends StatusOf<Op>> = ResponsesOf<Op>[S] extends { content?: never }
  ? undefined
  : ResponsesOf<Op>[S] extends { content: { 'application/json': infer B } }
    ? B
    : unknown;

/** The JSON request body an operation accepts, every top-level field optional: it is untrusted input. */
export type RequestBodyOf<Op> = Op extends { requestBody?: { content: { 'application/json': infer B } } }
  ? B extends unknown[]
    ? B
    : Partial<B>
  : Record<string, unknown>;

/** Names in a template such as `/repos/{owner}/{repo}`. */
export type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | ParamNames<Rest>
  : never;
