/**
 * The trace explorer's HTML page. Host-side (no `vscode` import) so the
 * extension, the browser tests and the bench all serve the very same page
 * and the very same Content-Security-Policy.
 */
import { renderWebviewPage } from '../webviewPage';

export { makeNonce } from '../webviewPage';

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

/** Builds the page: strict CSP (no inline script or style without the nonce), one script, one root. */
export function renderExplorerHtml(opts: ExplorerHtmlOptions): string {
  return renderWebviewPage({
    title: opts.title ?? 'HUD trace explorer',
    nonce: opts.nonce,
    cspSource: opts.cspSource,
    scriptUri: opts.scriptUri,
    ...(opts.styleUri ? { styleUri: opts.styleUri } : {}),
    body: '<div id="app" role="main"></div>',
    ...(opts.initialTrace === undefined ? {} : { data: { 'hud-initial-trace': opts.initialTrace } }),
    allow: { stylesheets: true, images: true, fonts: true, blobWorkers: true },
  });
}
