/**
 * The App-manifest flow's conversion, as GitHub serves it (`POST /app-manifests/{code}/conversions`, no
 * credentials: the one-time code is the secret): a code the manifest flow handed back becomes the new App's id,
 * webhook secret, private key and OAuth client, once. A code used before, or never issued, is 404. Here every
 * code not yet used is taken as issued (the manifest form itself is github.com's page, not served here).
 */
import type { Urls } from './context.js';
import { integration } from './render/apps.js';
import type { Reply } from './router.js';
import type { GitHubState } from './state.js';

export const CONVERSION_TEMPLATE = '/app-manifests/{code}/conversions';
export const CONVERSION_PATH = /^\/app-manifests\/([^/]+)\/conversions$/;

/** Stands in for the new App's private key: setup only stores it. */
const PEM =
  '-----BEGIN RSA PRIVATE KEY-----\nbG9jYWwgR2l0SHViJ3MgbmV3IEFwcA==\n-----END RSA PRIVATE KEY-----\n';

export class ManifestConversions {
  readonly #used = new Set<string>();
  constructor(
    private readonly state: GitHubState,
    private readonly urls: Urls,
  ) {}

  /** The answer to a conversion, or undefined for any other request. */
  answer(method: string, url: URL): Reply | undefined {
    const code = CONVERSION_PATH.exec(url.pathname)?.[1];
    if (method !== 'POST' || code === undefined) return undefined;
    if (this.#used.has(code))
      return {
        status: 404,
        body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' },
      };
    this.#used.add(code);
    const app = integration(this.state.app, this.state, this.urls);
    const body = {
      ...app,
      client_secret: `${app.client_id}-secret`,
      webhook_secret: `whsec-${code}`,
      pem: PEM,
    };
    return { status: 201, body };
  }
}
