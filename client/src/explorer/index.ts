/**
 * Host side of the trace explorer webview (no `vscode` import). Wiring, for
 * the panel and for the `*.hudtrace.json` custom editor alike:
 *
 *   webview.options = { enableScripts: true, localResourceRoots: [Uri.joinPath(extensionUri, 'dist', 'media')] };
 *   webview.html = renderExplorerHtml({
 *     cspSource: webview.cspSource,
 *     scriptUri: webview.asWebviewUri(Uri.joinPath(extensionUri, 'dist', 'media', 'explorer.js')).toString(),
 *     nonce: makeNonce(),
 *   });
 *   webview.onDidReceiveMessage((m) => {
 *     if (!isExplorerToHostMessage(m)) return;
 *     if (m.type === 'ready') webview.postMessage({ type: 'trace', trace: fileText } satisfies HostToExplorerMessage);
 *     // 'openTask' -> open the task's source by reference; 'openFile' -> reveal the path
 *   });
 *
 * While a rollout runs, post `{type: 'running', trace}` with the rollout so
 * far ({@link LiveRollouts.snapshot}), then `{type: 'event', event}` (or log
 * bursts as `{type: 'events', events}`) for each RolloutEvent of that
 * rollout; the page folds them with the engine's fold. `ready` arrives again
 * whenever VS Code reloads a hidden webview (the page shows its saved state
 * meanwhile): answer it the same way, then keep streaming events.
 */
export { makeNonce, renderExplorerHtml, type ExplorerHtmlOptions } from './html';
export {
  isExplorerToHostMessage,
  type ExplorerToHostMessage,
  type HostToExplorerMessage,
  type HostToExplorerType,
} from '../../../common/explorerMessages';
export { LiveRollouts } from './liveRollouts';
