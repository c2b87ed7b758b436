// The GitHub App manifest flow's pure half: the manifest built from app.yml for this server's address, the page
// that posts it to GitHub, and the .env text that holds the credentials GitHub hands back. No I/O here.
import { parse } from 'yaml';

/** Where the setup server is reached and where GitHub's pages are. */
export interface ManifestTarget {
  /** This server's public origin, e.g. `https://interlock.example.com`. */
  baseUrl: string;
  webhookPath: string;
  /** GitHub's web origin (`https://github.com`, or a GitHub Enterprise Server's). */
  githubUrl: string;
  /** Register the App under this organization instead of the signed-in user. */
  org?: string;
  /** The random value GitHub hands back with the code, so a code from elsewhere is refused. */
  state: string;
}

export const SETUP_DONE_PATH = '/setup/done';

/** Where GitHub sends a person back after they authorize the App on the maintainers' page (issue 37). */
const PAGE_CALLBACK_PATH = '/interlock/callback';

/**
 * The manifest GitHub registers the App from: app.yml plus this server's webhook and redirect URLs, and the
 * callback URL of the maintainers' page's login (user authorization through the web flow, asked when a person
 * logs in rather than when the App is installed).
 */
export function buildManifest(appYml: string, target: ManifestTarget): Record<string, unknown> {
  const declared = parse(appYml) as Record<string, unknown> | null;
  if (!declared || typeof declared !== 'object' || typeof declared.name !== 'string')
    throw new Error('app.yml: expected a mapping with at least `name` (the App manifest)');
  return {
    ...declared,
    hook_attributes: { url: `${target.baseUrl}${target.webhookPath}`, active: true },
    redirect_url: `${target.baseUrl}${SETUP_DONE_PATH}`,
    callback_urls: [`${target.baseUrl}${PAGE_CALLBACK_PATH}`],
    request_oauth_on_install: false,
  };
}

/** The address of GitHub's "register an App from a manifest" form. */
function registerUrl(target: ManifestTarget): string {
  const owner = target.org ? `/organizations/${encodeURIComponent(target.org)}` : '';
  return `${target.githubUrl}${owner}/settings/apps/new?state=${encodeURIComponent(target.state)}`;
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The variables a configured App reads; the setup page and log name them. */
export const REQUIRED_SETTINGS = [
  'APP_ID (the App id from its settings page)',
  'WEBHOOK_SECRET (the webhook secret set there)',
  'PRIVATE_KEY (the private key, PEM or base64) or PRIVATE_KEY_PATH',
] as const;

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body style="font-family:sans-serif;max-width:40em;margin:3em auto">
<h1>${escapeHtml(title)}</h1>
${body}
</body></html>
`;
}

/**
 * The setup page: one button that posts the manifest to GitHub, and what to set instead by hand. Without
 * `saveTo` (the credentials could not be saved) it offers no button: GitHub hands the credentials over once.
 */
export function setupPage(
  manifest: Record<string, unknown>,
  target: ManifestTarget,
  saveTo?: string,
): string {
  const settings = REQUIRED_SETTINGS.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('');
  const form = saveTo
    ? `<p>This server has no <code>APP_ID</code> yet. Register the App on GitHub from its manifest
(<code>app.yml</code>): GitHub creates it with the events and permissions listed there, sends you back here, and
its credentials are saved in <code>${escapeHtml(saveTo)}</code>.</p>
<form action="${escapeHtml(registerUrl(target))}" method="post">
<input type="hidden" name="manifest" value="${escapeHtml(JSON.stringify(manifest))}">
<button type="submit">Register the GitHub App</button>
</form>
<p>Or register it yourself and start the server with:</p>`
    : `<p>This server has no <code>APP_ID</code>, and it cannot save the credentials GitHub would hand back (its
directory is not writable), so it does not offer GitHub's registration here. Run <code>npm start</code> where it can
(e.g. on your machine), or register the App from <code>app.yml</code> by hand, then start this server with:</p>`;
  return page(
    'Set up the interlock GitHub App',
    `${form}
<ul>${settings}</ul>`,
  );
}

/** What GitHub answers to `POST /app-manifests/{code}/conversions`, as far as the App needs it. */
export interface Conversion {
  id: number;
  pem: string;
  webhook_secret: string;
  html_url: string;
  /** The App's OAuth client, for the maintainers' page's login. */
  client_id?: string;
  client_secret?: string;
}

/**
 * The .env lines for a converted App; the key is base64 so the value stays on one line. `pageKey`: a fresh key
 * for INTERLOCK_PAGE_KEYS (32 random bytes, base64), made by the caller.
 */
export function envText(app: Conversion, pageUrl?: string, pageKey = ''): string {
  const client =
    app.client_id && app.client_secret
      ? [
          "# The maintainers' page (docs/DEPLOY.md): on at INTERLOCK_PAGE_URL, with the App's OAuth client for the login.",
          `GITHUB_CLIENT_ID=${app.client_id}`,
          `GITHUB_CLIENT_SECRET=${app.client_secret}`,
          ...(pageUrl ? [`INTERLOCK_PAGE_URL=${pageUrl}`] : []),
          ...(pageKey
            ? [
                "# Seals the page's logins; give every replica the same value (rotate: a new key first, then the old).",
                `INTERLOCK_PAGE_KEYS=${pageKey}`,
              ]
            : []),
        ]
      : [];
  return [
    `APP_ID=${app.id}`,
    `WEBHOOK_SECRET=${app.webhook_secret}`,
    `PRIVATE_KEY=${Buffer.from(app.pem).toString('base64')}`,
    ...client,
    '',
  ].join('\n');
}

/** The page after a successful registration. */
export function donePage(app: Conversion, envFile: string): string {
  const install = `${app.html_url}/installations/new`;
  return page(
    'The interlock GitHub App is registered',
    `<p>Its id, webhook secret and private key are saved in <code>${escapeHtml(envFile)}</code>.</p>
<ol><li><a href="${escapeHtml(install)}">Install the App</a> on the repositories that run interlock.</li>
<li>Restart this server (<code>npm start</code>): it reads <code>${escapeHtml(envFile)}</code> and receives webhooks.</li></ol>`,
  );
}
