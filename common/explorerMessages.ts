/**
 * Messages between the extension host and the trace explorer webview. Both
 * sides import these types; the webview validates everything it receives
 * (a trace is untrusted input), so `trace` fields are typed `unknown`: the
 * host may pass the parsed JSON object or the raw file text.
 *
 * Typical host flow:
 *   1. set `webview.html = renderExplorerHtml(...)`;
 *   2. wait for `{type: 'ready'}` from the webview (it is sent on every load,
 *      including after VS Code reloads a hidden webview);
 *   3. post `{type: 'trace', trace}` for a finished rollout (file text or
 *      parsed object); or, while a rollout runs, `{type: 'running', trace}`
 *      with the rollout so far (a running trace is not a trace file: it has
 *      its own schema and its own message), then `{type: 'event' | 'events'}`
 *      as they happen, which the page folds like the engine does; or
 *      `{type: 'compare', left, right}` for two rollouts of one task.
 *
 * The page keeps what it shows with the webview's `setState`, so a hidden
 * panel that VS Code reloads shows it again at once; its `ready` is then
 * answered like the first one.
 */
import type { RolloutEvent } from './events';
import type { PhaseName } from './trace/schema';

/** Host -> webview. */
export type HostToExplorerMessage =
  /** Show one rollout (replaces whatever is shown). `trace` is a parsed trace object or its JSON text. */
  | { type: 'trace'; trace: unknown }
  /** Show a rollout that may still be running (a `RunningTrace`), to be followed by its live events. */
  | { type: 'running'; trace: unknown }
  /**
   * One live event of the rollout being shown. A `rollout.queued` or
   * `rollout.started` event of a rollout not shown yet starts a new live trace
   * (replacing what was shown); other events of another rollout id are ignored.
   */
  | { type: 'event'; event: RolloutEvent }
  /** A burst of live events (e.g. log lines), applied in order with one repaint. */
  | { type: 'events'; events: RolloutEvent[] }
  /** Two rollouts of the same task side by side; each is a trace object or JSON text. */
  | { type: 'compare'; left: unknown; right: unknown }
  /** The host could not load what was asked for (e.g. unreadable file); shown instead of a trace. */
  | { type: 'loadError'; message: string }
  /**
   * A rollout ran another version of its template than the file holds now
   * (`text` says which grader changed), or `text` null: it is current again.
   * Shown as a banner with "Show Template Diff" (docs/grader-workbench.md).
   */
  | { type: 'stale'; rolloutId: string; text: string | null }
  /** Answer to `openWholeLog`: the side file's bytes (UTF-8). */
  | { type: 'wholeLog'; phase: PhaseName; data: Uint8Array | ArrayBuffer }
  /** Answer to `openWholeLog` when the side file cannot be read (missing, too big, outside the trace's folder). */
  | { type: 'wholeLogError'; phase: PhaseName; message: string };

/** Webview -> host. */
export type ExplorerToHostMessage =
  /** The page is ready for a `trace` / `compare` message. */
  | { type: 'ready' }
  /** Open the task's source, by task reference (`PATH::NAME`, `PATH::N`, or a Harbor directory). */
  | { type: 'openTask'; ref: string }
  /** Open a file or folder named by the trace (e.g. a Harbor trial directory). */
  | { type: 'openFile'; path: string }
  /** Diff the template source a rollout ran against the file now. */
  | { type: 'showTemplateDiff'; rolloutId: string }
  /** Send the whole log of a phase: `file` is the phase's `logFile`, relative to the trace's folder. */
  | { type: 'openWholeLog'; phase: PhaseName; file: string };

export type HostToExplorerType = HostToExplorerMessage['type'];

/** Narrowing for the host's `onDidReceiveMessage` (the webview is less trusted than the host). */
export function isExplorerToHostMessage(value: unknown): value is ExplorerToHostMessage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  switch (m.type) {
    case 'ready':
      return true;
    case 'openTask':
      return typeof m.ref === 'string' && m.ref.length > 0;
    case 'openFile':
      return typeof m.path === 'string' && m.path.length > 0;
    case 'showTemplateDiff':
      return typeof m.rolloutId === 'string' && m.rolloutId.length > 0;
    case 'openWholeLog':
      return (m.phase === 'actor' || m.phase === 'verifier') && typeof m.file === 'string' && m.file.length > 0;
    default:
      return false;
  }
}
