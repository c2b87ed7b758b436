/**
 * The requests the key proxy forwards, as data: each engine's model calls and nothing else, which of them it meters.
 * What it decides about them is `src/os/proxies/key-proxy-rules.ts`.
 */
import type { ModelApi } from './key-proxy-rules.js';

export interface Route {
  method: string;
  path: string;
  api: ModelApi;
  /** What is appended to the upstream's base URL. */
  upstreamPath: string;
  /** A WebSocket upgrade (Codex tries the Responses API over WebSocket before HTTPS). */
  upgrade?: true;
  /** The paths the route serves, when more than `path` (Gemini: one per model); each goes upstream as it came. */
  pattern?: RegExp;
  /** A model call whose answer carries the usage it is billed for (the key proxy meters it, and records it). */
  metered?: true;
  /** Not billed, but kept in an attempt's recording and answered from it on replay (a token count). */
  recorded?: true;
}

/** A Gemini API model call: `/v1beta/models/<model>:<method>` (the model name plain, no slash, no dots alone). */
const GEMINI_CALL =
  /^\/v1beta\/models\/[A-Za-z0-9][A-Za-z0-9._-]{0,127}:(streamGenerateContent|generateContent)$/;
/** Gemini's token count of a prompt: no model call, nothing billed. */
const GEMINI_COUNT = /^\/v1beta\/models\/[A-Za-z0-9][A-Za-z0-9._-]{0,127}:countTokens$/;

/** Azure OpenAI's chat completions of one deployment (the versioned route, with `?api-version=`). */
const AZURE_DEPLOYMENT_CHAT = /^\/openai\/deployments\/[A-Za-z0-9][A-Za-z0-9._-]{0,127}\/chat\/completions$/;

/** Every request the proxy forwards: the engines' model calls, nothing else (no files, batches, models, admin). */
export const ROUTES: readonly Route[] = [
  { method: 'POST', path: '/v1/messages', api: 'anthropic', upstreamPath: '/v1/messages', metered: true },
  {
    method: 'POST',
    path: '/v1/messages/count_tokens',
    api: 'anthropic',
    upstreamPath: '/v1/messages/count_tokens',
    recorded: true,
  },
  { method: 'POST', path: '/v1/responses', api: 'openai', upstreamPath: '/responses', metered: true },
  { method: 'GET', path: '/v1/responses', api: 'openai', upstreamPath: '/responses', upgrade: true },
  // Copilot CLI's default wire API for an OpenAI-style provider (with `stream_options.include_usage`).
  {
    method: 'POST',
    path: '/v1/chat/completions',
    api: 'openai',
    upstreamPath: '/chat/completions',
    metered: true,
  },
  // Azure OpenAI as Copilot CLI calls it: the versionless v1 routes, or with an API version set, the versioned
  // ones (the query, `api-version` included, goes upstream as it came).
  ...['/openai/v1/responses', '/openai/v1/chat/completions', '/openai/responses'].map(
    (path): Route => ({ method: 'POST', path, api: 'azure', upstreamPath: path, metered: true }),
  ),
  {
    method: 'POST',
    path: '/openai/deployments/<deployment>/chat/completions',
    api: 'azure',
    upstreamPath: '',
    pattern: AZURE_DEPLOYMENT_CHAT,
    metered: true,
  },
  {
    method: 'POST',
    path: '/v1beta/models/<model>:{streamGenerateContent,generateContent}',
    api: 'gemini',
    upstreamPath: '',
    pattern: GEMINI_CALL,
    metered: true,
  },
  {
    method: 'POST',
    path: '/v1beta/models/<model>:countTokens',
    api: 'gemini',
    upstreamPath: '',
    pattern: GEMINI_COUNT,
    recorded: true,
  },
];
