/**
 * Hosts the trace explorer webview (built by media/src/explorer): a panel
 * per rollout opened from the Runs view or after a run, live updates while a
 * rollout runs, and the custom editor for `*.hudtrace.json` files.
 */
import * as vscode from 'vscode';
import type { RolloutEvent } from '../../../common/events';
import { LiveRollouts } from '../explorer/liveRollouts';
import { renderExplorerHtml } from '../explorer/html';
import { makeNonce } from '../webviewPage';
import { MAX_WHOLE_LOG_BYTES, tooBigMessage, wholeLogFile } from '../explorer/wholeLogFile';
import type { PhaseName } from '../../../common/trace/schema';
import { type HostToExplorerMessage, isExplorerToHostMessage } from '../../../common/explorerMessages';

export const TRACE_EDITOR_VIEW_TYPE = 'hudStudio.traceExplorer';

/** What a panel shows: a trace file, a rollout that may still be running, or two trace files side by side. */
type Source =
  | { kind: 'file'; uri: vscode.Uri }
  | { kind: 'live'; rolloutId: string }
  | { kind: 'compare'; left: vscode.Uri; right: vscode.Uri };

interface Shown {
  panel: vscode.WebviewPanel;
  source: Source;
  ready: boolean;
  pending: RolloutEvent[];
  /** The rollouts a file or compare panel shows, for their stale banners. */
  rolloutIds: string[];
}

export class TraceExplorer implements vscode.CustomReadonlyEditorProvider, vscode.Disposable {
  private readonly shown = new Set<Shown>();
  /** Live traces of rollouts of this session, so a panel opened mid-run starts with everything so far. */
  private readonly live = new LiveRollouts();
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly openTaskRef: (ref: string) => Promise<void>,
    /** Why a stored rollout is stale (its template changed since it ran), or undefined when it is current. */
    private readonly staleNote: (rolloutId: string) => string | undefined = () => undefined,
  ) {}

  /** Sends every shown stored rollout's stale mark again (the files changed). */
  refreshStale(): void {
    for (const s of this.shown) if (s.ready) void this.postStale(s);
  }

  private async postStale(s: Shown): Promise<void> {
    for (const rolloutId of s.rolloutIds)
      await this.post(s, { type: 'stale', rolloutId, text: this.staleNote(rolloutId) ?? null });
  }

  // ---- live events ------------------------------------------------------

  onEvent(e: RolloutEvent): void {
    this.live.apply(e);
    let queued = false;
    for (const s of this.shown) {
      if (s.source.kind === 'live' && s.source.rolloutId === e.rolloutId) {
        s.pending.push(e);
        queued = true;
      }
    }
    if (e.type === 'rollout.ended') {
      // The trace file is the record from now on; keep the live copy only while a panel shows it.
      const shown = [...this.shown].some((s) => s.source.kind === 'live' && s.source.rolloutId === e.rolloutId);
      if (!shown) this.live.forget(e.rolloutId);
    }
    if (queued && !this.flushTimer) this.flushTimer = setTimeout(() => this.flush(), 100);
  }

  private flush(): void {
    this.flushTimer = undefined;
    for (const s of this.shown) {
      if (!s.ready || !s.pending.length) continue;
      const events = s.pending.splice(0);
      void this.post(s, events.length === 1 ? { type: 'event', event: events[0]! } : { type: 'events', events });
    }
  }

  // ---- opening ----------------------------------------------------------

  /** Opens a rollout: live while it runs (or if its trace file is not written yet), else its file. */
  openRollout(rolloutId: string, tracePath: string | undefined, title: string): void {
    const source: Source =
      tracePath && !this.isRunning(rolloutId)
        ? { kind: 'file', uri: vscode.Uri.file(tracePath) }
        : { kind: 'live', rolloutId };
    this.openPanel(source, `Trace · ${title}`, title);
  }

  /** Two finished rollouts in the compare view, `left` the earlier one. */
  openCompare(left: string, right: string, title: string): void {
    const source: Source = { kind: 'compare', left: vscode.Uri.file(left), right: vscode.Uri.file(right) };
    this.openPanel(source, `Compare · ${title}`, `Compare · ${title}`);
  }

  private isRunning(rolloutId: string): boolean {
    return this.live.isRunning(rolloutId);
  }

  /** Reveals the panel that already shows `source`, or opens one: one panel per rollout or pair. */
  private openPanel(source: Source, panelTitle: string, title: string): void {
    const open = [...this.shown].find((s) => sameSource(s.source, source));
    if (open) {
      open.panel.reveal(undefined, false);
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      TRACE_EDITOR_VIEW_TYPE + '.panel',
      panelTitle,
      vscode.ViewColumn.Active,
      this.webviewOptions(),
    );
    this.attach(panel, source, title);
  }

  async openFile(uri: vscode.Uri): Promise<void> {
    await vscode.commands.executeCommand('vscode.openWith', uri, TRACE_EDITOR_VIEW_TYPE);
  }

  // ---- custom editor ----------------------------------------------------

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): void {
    panel.webview.options = this.webviewOptions();
    this.attach(panel, { kind: 'file', uri: document.uri }, document.uri.path.split('/').at(-1) ?? 'trace');
  }

  // ---- plumbing ---------------------------------------------------------

  private webviewOptions(): vscode.WebviewOptions & vscode.WebviewPanelOptions {
    return {
      enableScripts: true,
      retainContextWhenHidden: false,
      localResourceRoots: [vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'media')],
    };
  }

  private attach(panel: vscode.WebviewPanel, source: Source, title: string): void {
    const s: Shown = { panel, source, ready: false, pending: [], rolloutIds: [] };
    this.shown.add(s);
    const script = panel.webview.asWebviewUri(
      vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'media', 'explorer.js'),
    );
    panel.webview.html = renderExplorerHtml({
      cspSource: panel.webview.cspSource,
      scriptUri: script.toString(),
      nonce: makeNonce(),
      title: `Trace · ${title}`,
    });
    const subs = [
      panel.webview.onDidReceiveMessage((m: unknown) => void this.onMessage(s, m)),
      panel.onDidDispose(() => {
        this.shown.delete(s);
        for (const d of subs) d.dispose();
        if (s.source.kind === 'live' && !this.isRunning(s.source.rolloutId)) this.live.forget(s.source.rolloutId);
      }),
    ];
    if (source.kind === 'file') {
      const watcher = vscode.workspace.createFileSystemWatcher(
        new vscode.RelativePattern(vscode.Uri.joinPath(source.uri, '..'), source.uri.path.split('/').at(-1)!),
      );
      subs.push(
        watcher,
        watcher.onDidChange(() => s.ready && void this.sendInitial(s)),
      );
    }
  }

  private async onMessage(s: Shown, m: unknown): Promise<void> {
    if (!isExplorerToHostMessage(m)) return;
    switch (m.type) {
      case 'ready':
        // Sent on every (re)load of the page, e.g. after a hidden webview comes back.
        s.ready = true;
        s.pending = [];
        await this.sendInitial(s);
        return;
      case 'openTask':
        await this.openTaskRef(m.ref);
        return;
      case 'showTemplateDiff':
        await vscode.commands.executeCommand('hudStudio.showTemplateDiff', { rolloutId: m.rolloutId });
        return;
      case 'openWholeLog':
        await this.sendWholeLog(s, m.phase, m.file);
        return;
      case 'openFile': {
        const uri = vscode.Uri.file(m.path);
        await vscode.commands
          .executeCommand('revealFileInOS', uri)
          .then(undefined, () => vscode.commands.executeCommand('vscode.open', uri));
        return;
      }
    }
  }

  private async sendInitial(s: Shown): Promise<void> {
    if (s.source.kind === 'live') {
      await this.post(s, this.live.snapshot(s.source.rolloutId));
      return;
    }
    if (s.source.kind === 'compare') {
      const { left, right } = s.source;
      try {
        const [a, b] = await Promise.all([vscode.workspace.fs.readFile(left), vscode.workspace.fs.readFile(right)]);
        const text = new TextDecoder();
        // Raw text, parsed and validated by the webview like a single trace.
        const texts = [text.decode(a), text.decode(b)];
        await this.post(s, { type: 'compare', left: texts[0], right: texts[1] });
        s.rolloutIds = texts.map(rolloutIdOf).filter((id): id is string => id !== undefined);
        await this.postStale(s);
      } catch (err) {
        await this.post(s, {
          type: 'loadError',
          message: `Cannot read the traces to compare: ${(err as Error).message}`,
        });
      }
      return;
    }
    try {
      const bytes = await vscode.workspace.fs.readFile(s.source.uri);
      // Raw text: the webview parses and validates it (a trace file is untrusted input).
      const text = new TextDecoder().decode(bytes);
      await this.post(s, { type: 'trace', trace: text });
      s.rolloutIds = [rolloutIdOf(text)].filter((id): id is string => id !== undefined);
      await this.postStale(s);
    } catch (err) {
      await this.post(s, {
        type: 'loadError',
        message: `Cannot read ${s.source.uri.fsPath}: ${(err as Error).message}`,
      });
    }
  }

  /** A phase's side file, as bytes (the page indexes them in a worker). Only the file beside a trace file shown. */
  private async sendWholeLog(s: Shown, phase: PhaseName, file: string): Promise<void> {
    if (s.source.kind !== 'file') {
      await this.post(s, { type: 'wholeLogError', phase, message: 'open the trace file to see the whole log' });
      return;
    }
    const target = wholeLogFile(s.source.uri.fsPath, phase, file);
    if (!target.ok) {
      await this.post(s, { type: 'wholeLogError', phase, message: target.message });
      return;
    }
    try {
      const uri = vscode.Uri.file(target.path);
      const { size } = await vscode.workspace.fs.stat(uri);
      if (size > MAX_WHOLE_LOG_BYTES) {
        await this.post(s, { type: 'wholeLogError', phase, message: tooBigMessage(target.path, size) });
        return;
      }
      await this.post(s, { type: 'wholeLog', phase, data: await vscode.workspace.fs.readFile(uri) });
    } catch (err) {
      await this.post(s, {
        type: 'wholeLogError',
        phase,
        message: `Cannot read ${target.path}: ${(err as Error).message}`,
      });
    }
  }

  private post(s: Shown, m: HostToExplorerMessage): Thenable<boolean> {
    return s.panel.webview.postMessage(m);
  }

  dispose(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    for (const s of [...this.shown]) s.panel.dispose();
  }
}

/** The rollout id of a trace file's text; the webview validates the rest. */
function rolloutIdOf(text: string): string | undefined {
  try {
    const v = (JSON.parse(text) as { rolloutId?: unknown }).rolloutId;
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

function sameSource(a: Source, b: Source): boolean {
  if (a.kind === 'file' && b.kind === 'file') return a.uri.toString() === b.uri.toString();
  if (a.kind === 'live' && b.kind === 'live') return a.rolloutId === b.rolloutId;
  if (a.kind === 'compare' && b.kind === 'compare')
    return a.left.toString() === b.left.toString() && a.right.toString() === b.right.toString();
  return false;
}
