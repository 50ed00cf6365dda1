/**
 * The one way HUD Studio builds a webview page (the trace explorer, the job
 * view, the ask agent's prompt): a Content-Security-Policy that allows
 * nothing but what the page names, scripts and styles only under a fresh
 * nonce, data embedded as inert JSON, and every piece of text escaped
 * (docs/security.md). Host-side, no `vscode` import, so the extension, the
 * browser tests and the benches serve the very same pages.
 */
import { randomBytes } from 'node:crypto';

/** 128 random bits, base64: unguessable by content that ends up in the page. */
export function makeNonce(): string {
  return randomBytes(16).toString('base64');
}

const NONCE_RE = /^[A-Za-z0-9+/=_-]{16,}$/;

export interface WebviewPage {
  title: string;
  /** From {@link makeNonce}; a fresh one for every page. */
  nonce: string;
  /** `webview.cspSource` in VS Code; the page's origin in a browser. Needed when the page loads files. */
  cspSource?: string;
  /** The page's one script (none: a page that runs no script at all). */
  scriptUri?: string;
  /** A stylesheet loaded from `cspSource` (the bundles inject their own styles under the nonce). */
  styleUri?: string;
  /** Styles written into the page, under the nonce. */
  inlineStyle?: string;
  /** Markup of the body before the data and the script; the caller escapes what it puts there. */
  body: string;
  /** Values the script reads, as `<script type="application/json" id=...>` blocks. */
  data?: Record<string, unknown>;
  /** What the page may load beyond its script and styles. */
  allow?: { images?: boolean; fonts?: boolean; stylesheets?: boolean; blobWorkers?: boolean };
}

export function renderWebviewPage(page: WebviewPage): string {
  if (!NONCE_RE.test(page.nonce))
    throw new Error('webview page: the nonce must be at least 16 base64 characters (use makeNonce())');
  const from = page.cspSource ?? '';
  const allow = page.allow ?? {};
  const csp = [
    "default-src 'none'",
    ...(page.scriptUri ? [`script-src 'nonce-${page.nonce}'`] : []),
    `style-src ${allow.stylesheets ? `${from} ` : ''}'nonce-${page.nonce}'`,
    ...(allow.images ? [`img-src ${from} data:`] : []),
    ...(allow.fonts ? [`font-src ${from}`] : []),
    // A worker the page's own script starts from a blob it made (the explorer's whole-log index).
    ...(allow.blobWorkers ? ['worker-src blob:'] : []),
  ].join('; ');
  const head = [
    `<meta charset="UTF-8">`,
    `<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1.0">`,
    `<title>${escapeHtml(page.title)}</title>`,
    ...(page.styleUri ? [`<link rel="stylesheet" href="${escapeAttr(page.styleUri)}" nonce="${page.nonce}">`] : []),
    ...(page.inlineStyle ? [`<style nonce="${page.nonce}">${page.inlineStyle}</style>`] : []),
  ];
  const tail = [
    ...Object.entries(page.data ?? {}).map(
      ([id, value]) =>
        `<script type="application/json" id="${escapeAttr(id)}" nonce="${page.nonce}">${jsonForScript(value)}</script>`,
    ),
    ...(page.scriptUri ? [`<script nonce="${page.nonce}" src="${escapeAttr(page.scriptUri)}"></script>`] : []),
  ];
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    ${head.join('\n    ')}
  </head>
  <body>
    ${[page.body, ...tail].join('\n    ')}
  </body>
</html>
`;
}

export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** For a double-quoted attribute: the policy's single quotes stay readable. */
function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * JSON inside a <script type="application/json"> block: `<` is escaped so no
 * `</script>` or `<!--` in the data can end the block early. JSON text passed
 * as a string is embedded as a JSON string and parsed twice by the page.
 */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
