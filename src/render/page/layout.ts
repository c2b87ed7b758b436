/**
 * The frame every page of the maintainers' page shares: the document, its style (light and dark by
 * `prefers-color-scheme`, readable at phone width, a visible focus ring), the header with who is logged in, and
 * the notice an action left. No script is needed for anything; one small script only refreshes the list. Pure.
 */
import { type Html, html, raw } from './html.js';

const STYLE = `
:root{color-scheme:light dark;--bg:#ffffff;--fg:#1f2328;--muted:#57606a;--line:#d0d7de;--card:#f6f8fa;
--accent:#0550ae;--ok:#1a7f37;--bad:#a40e26;--warn:#7d4e00;--btn:#0550ae;--btnfg:#ffffff}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;
--card:#161b22;--accent:#6cb6ff;--ok:#57d364;--bad:#ff8182;--warn:#e3b341;--btn:#2f81f7;--btnfg:#0d1117}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;background:var(--bg);color:var(--fg)}
a{color:var(--accent)}
header,main,footer{max-width:72rem;margin:0 auto;padding:.75rem 1rem}
header{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:baseline;border-bottom:1px solid var(--line)}
header h1{font-size:1.25rem;margin:0}
.who{margin-left:auto;color:var(--muted)}
.counts{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem 1rem;padding:0;margin:.5rem 0}
.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end;margin:.5rem 0 1rem}
.row{border:1px solid var(--line);border-radius:6px;background:var(--card);padding:.75rem 1rem;margin:0 0 1rem}
.row h2,.row h3{font-size:1.05rem;margin:0 0 .25rem;overflow-wrap:anywhere}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:.5rem 0}
dl.facts dt{color:var(--muted)} dl.facts dd{margin:0;overflow-wrap:anywhere}
@media (max-width:40rem){dl.facts{grid-template-columns:1fr} dl.facts dd{margin-bottom:.35rem}}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--bg);border:1px solid var(--line);padding:.5rem;
border-radius:6px;font-size:.875rem;max-height:24rem;overflow:auto}
code{font-size:.9em}
.actions{display:flex;flex-wrap:wrap;gap:1rem}
.actions form{flex:1 1 16rem;display:flex;flex-direction:column;gap:.35rem}
fieldset{border:1px solid var(--line);border-radius:6px;margin:0;padding:.5rem .75rem;min-width:0}
label{font-weight:600}
textarea,input,select{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--muted);
border-radius:6px;padding:.35rem .5rem;width:100%}
button{font:inherit;font-weight:600;border:0;border-radius:6px;padding:.45rem 1rem;background:var(--btn);
color:var(--btnfg);cursor:pointer;align-self:start;min-height:2.75rem}
button.danger{background:var(--bad);color:var(--bg)}
button:disabled{background:var(--line);color:var(--muted);cursor:not-allowed}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.why-not{color:var(--warn);margin:.25rem 0}
.notice{border-left:4px solid var(--ok);padding:.5rem 1rem;background:var(--card)}
.notice.error{border-color:var(--bad)}
.muted{color:var(--muted)}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{border-bottom:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}
.scroll{overflow-x:auto}
svg text{font:12px system-ui,sans-serif}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.5rem}
`;

/** Who is looking, and where the page lives. */
export interface Frame {
  title: string;
  /** The path prefix of the page's routes (`/interlock`, or `/t/<token>` for `interlock ui`). */
  base: string;
  /** The person logged in; absent for `interlock ui` (the local user). */
  user?: string;
  /** The CSRF token every form carries. */
  csrf: string;
  /** What the last action did, shown once at the top. */
  notice?: { ok: boolean; text: string };
  /** Seconds between refreshes of the list (a script, only to refresh); absent for none. */
  refreshSeconds?: number;
}

/** The one script: reloads the list now and then, unless the person is typing. */
export function refreshScript(seconds: number): string {
  const ms = Math.max(10, Math.floor(seconds)) * 1000;
  return `setTimeout(function(){var t=[].slice.call(document.querySelectorAll('textarea'));if(!t.some(function(x){return x.value||x===document.activeElement}))location.reload()},${ms})`;
}

/** A whole page: the document around `body`. */
export function pageDocument(frame: Frame, body: Html): string {
  const logout = frame.user
    ? html`<form method="post" action="${frame.base}/logout"><input type="hidden" name="csrf" value="${frame.csrf}"><button type="submit">Log out</button></form>`
    : '';
  const refresh = frame.refreshSeconds ? raw(`<script>${refreshScript(frame.refreshSeconds)}</script>`) : '';
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${frame.title} &middot; interlock</title><style>${raw(STYLE)}</style></head>
<body><a class="skip" href="#main">Skip to the list</a>
<header><h1><a href="${frame.base}/">interlock</a>: ${frame.title}</h1>
<span class="who">${frame.user ? html`logged in as <strong>@${frame.user}</strong>` : 'local journals'}</span>${logout}</header>
<main id="main">${frame.notice ? html`<p class="notice${frame.notice.ok ? '' : ' error'}" role="status">${frame.notice.text}</p>` : ''}${body}</main>
${refresh}</body></html>
`.text;
}
