/**
 * The trace explorer's HTML page. Host-side (no `vscode` import) so the
 * extension, the browser tests and the bench all serve the very same page
 * and the very same Content-Security-Policy.
 */
import { randomBytes } from 'node:crypto';

export interface ExplorerHtmlOptions {
  /** `webview.cspSource` in VS Code; the page's origin (e.g. `http://127.0.0.1:PORT`) in a browser. */
  cspSource: string;
  /** URI of `dist/media/explorer.js` as the webview can load it (`webview.asWebviewUri`). */
  scriptUri: string;
  /** Optional extra stylesheet (the bundle injects its own styles under the nonce). */
  styleUri?: string;
  /** From {@link makeNonce}; a fresh one for every page. */
  nonce: string;
  /**
   * A trace to show before any message arrives (parsed object or JSON text).
   * Embedded as inert JSON data, never as script. Prefer posting a `trace`
   * message for large traces: this copies the whole trace into the HTML.
   */
  initialTrace?: unknown;
  /** Document title. */
  title?: string;
}

/** 128 random bits, base64: unguessable by content that ends up in the page. */
export function makeNonce(): string {
  return randomBytes(16).toString('base64');
}

const NONCE_RE = /^[A-Za-z0-9+/=_-]{16,}$/;

/** Builds the page: strict CSP (no inline script or style without the nonce), one script, one root. */
export function renderExplorerHtml(opts: ExplorerHtmlOptions): string {
  if (!NONCE_RE.test(opts.nonce))
    throw new Error('renderExplorerHtml: nonce must be at least 16 base64 characters (use makeNonce())');
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${opts.nonce}'`,
    `style-src ${opts.cspSource} 'nonce-${opts.nonce}'`,
    `img-src ${opts.cspSource} data:`,
    `font-src ${opts.cspSource}`,
    // The whole-log worker is started from a blob the page's own script makes (media/src/explorer/wholeLog/client.ts).
    'worker-src blob:',
  ].join('; ');
  const style = opts.styleUri
    ? `\n    <link rel="stylesheet" href="${attr(opts.styleUri)}" nonce="${opts.nonce}">`
    : '';
  const initial =
    opts.initialTrace === undefined
      ? ''
      : `\n    <script type="application/json" id="hud-initial-trace" nonce="${opts.nonce}">${jsonForScript(opts.initialTrace)}</script>`;
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <meta http-equiv="Content-Security-Policy" content="${attr(csp)}">
    <meta name="viewport" content="width=device-width, initial-scale=1.0">
    <title>${text(opts.title ?? 'HUD trace explorer')}</title>${style}
  </head>
  <body>
    <div id="app" role="main"></div>${initial}
    <script nonce="${opts.nonce}" src="${attr(opts.scriptUri)}"></script>
  </body>
</html>
`;
}

function attr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
function text(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
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
