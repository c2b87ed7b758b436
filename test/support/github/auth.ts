/** Who a request acts as, read from its Authorization header as GitHub reads it. */
import { HttpError } from './http-error.js';
import { clientSecretOf } from './oauth.js';
import type { Actor } from './records.js';
import { ACTIONS_APP, type GitHubState } from './state.js';

export interface AuthOptions {
  /** Login that a token the server does not know acts as (default `github-actions[bot]`). */
  readonly defaultLogin?: string;
  /** Refuse tokens the server does not know with 401 "Bad credentials". */
  readonly strictTokens?: boolean;
}

const JWT = /^eyJ[\w-]*\.[\w-]+\.[\w-]*$/;

/** The actor, or a 401 as GitHub sends for a missing or bad credential. */
export function authenticate(header: string | undefined, state: GitHubState, options: AuthOptions): Actor {
  const basic = /^basic\s+(\S+)$/i.exec(header?.trim() ?? '');
  if (basic) return client(basic[1]!, state);
  const match = /^(token|bearer)\s+(\S+)$/i.exec(header?.trim() ?? '');
  if (!match) throw new HttpError(401, 'Requires authentication');
  const token = match[2]!;
  if (JWT.test(token)) {
    if (!appJwtIsReadable(token)) throw new HttpError(401, 'A JSON web token could not be decoded');
    return { login: state.app.slug, app: state.app, asApp: true, token };
  }
  if (state.revokedTokens.has(token)) throw new HttpError(401, 'Bad credentials');
  const installationApp = state.installationTokens.get(token);
  if (installationApp) return { login: installationApp.botLogin, app: installationApp, asApp: false, token };
  const known = state.tokens.get(token);
  if (known === undefined && options.strictTokens) throw new HttpError(401, 'Bad credentials');
  const login = state.user(known ?? options.defaultLogin ?? ACTIONS_APP.botLogin).login;
  return {
    login,
    ...(login === ACTIONS_APP.botLogin ? { app: ACTIONS_APP } : {}),
    asApp: false,
    token,
  };
}

function appJwtIsReadable(token: string): boolean {
  try {
    const payload = JSON.parse(
      Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'),
    ) as unknown;
    return typeof payload === 'object' && payload !== null && 'iss' in payload;
  } catch {
    return false;
  }
}

/** The App's OAuth client (`client_id:client_secret`, Basic), as the OAuth applications API takes it. */
function client(encoded: string, state: GitHubState): Actor {
  const [id, secret] = Buffer.from(encoded, 'base64').toString('utf8').split(':');
  const clientId = `Iv1.${state.app.slug}`;
  if (id !== clientId || secret !== clientSecretOf(clientId)) throw new HttpError(401, 'Bad credentials');
  return { login: state.app.slug, app: state.app, asApp: true, client: true, token: encoded };
}
