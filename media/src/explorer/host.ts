/**
 * The page's link to whoever shows it: VS Code's webview API when present,
 * otherwise the plain-browser fallback used for development and tests
 * (messages arrive as window `message` events either way; outgoing messages
 * go to a parent frame, or are recorded on `window.hudExplorerOutbox`).
 */
import type { ExplorerToHostMessage } from '../../../common/explorerMessages';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare global {
  interface Window {
    /** Messages the page sent while running outside VS Code without a parent frame. */
    hudExplorerOutbox?: ExplorerToHostMessage[];
  }
  // Injected by VS Code into webviews; callable once.
  var acquireVsCodeApi: (() => VsCodeApi) | undefined;
}

export interface HostLink {
  readonly inVsCode: boolean;
  post(message: ExplorerToHostMessage): void;
  /** What the page saved before VS Code hid (and unloaded) it; undefined on a first load. */
  savedState(): unknown;
  /** Kept by VS Code while the panel lives, across reloads of a hidden webview. */
  saveState(state: unknown): void;
}

export function connectHost(): HostLink {
  if (typeof globalThis.acquireVsCodeApi === 'function') {
    const api = globalThis.acquireVsCodeApi();
    return {
      inVsCode: true,
      post: (m) => api.postMessage(m),
      savedState: () => api.getState(),
      saveState: (state) => api.setState(state),
    };
  }
  return {
    inVsCode: false,
    post: (m) => {
      if (window.parent !== window) window.parent.postMessage(m, '*');
      else (window.hudExplorerOutbox ??= []).push(m);
    },
    // A plain browser page has nothing that outlives it.
    savedState: () => undefined,
    saveState: () => undefined,
  };
}
