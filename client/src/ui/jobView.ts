/**
 * The job view: a read-only custom editor for `*.hudjob.json` showing the
 * task x model heat map (client/src/jobView/page.ts builds the page). A cell
 * opens its rollouts in the trace explorer, a row's compare control two
 * models' rollouts side by side; the page may only name traces the job file
 * itself lists.
 */
import { readFile } from 'node:fs/promises';
import * as vscode from 'vscode';
import { jobViewData, makeNonce, renderJobViewHtml, type JobViewToHostMessage } from '../jobView/page';
import { TRACE_EDITOR_VIEW_TYPE } from './traceExplorer';

export const JOB_VIEW_TYPE = 'hudStudio.jobView';

/** Opens two trace files in the explorer's compare view (the explorer's openCompare). */
export type CompareTraces = (left: string, right: string, title: string) => void;

export class JobView implements vscode.CustomReadonlyEditorProvider {
  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly compare?: CompareTraces,
  ) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  async resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): Promise<void> {
    const media = vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'media');
    panel.webview.options = { enableScripts: true, localResourceRoots: [media] };
    let job: unknown;
    try {
      job = JSON.parse(await readFile(document.uri.fsPath, 'utf8'));
    } catch (err) {
      job = {};
      void vscode.window.showErrorMessage(
        `HUD Studio: ${document.uri.fsPath} is not a job file: ${(err as Error).message}`,
      );
    }
    const data = jobViewData(job);
    const allowed = new Set(data.cells.flat().flatMap((c) => c.traces));
    panel.webview.html = renderJobViewHtml({
      cspSource: panel.webview.cspSource,
      scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(media, 'jobView.js')).toString(),
      nonce: makeNonce(),
      data,
    });
    panel.webview.onDidReceiveMessage(async (m: JobViewToHostMessage) => {
      if (m?.type === 'compareModels') {
        // The page may only name traces the job file lists.
        const { left, right } = m;
        if (!allowed.has(left?.trace) || !allowed.has(right?.trace) || left.trace === right.trace) return;
        this.compare?.(left.trace, right.trace, `${m.task}: ${left.model} vs ${right.model}`);
        return;
      }
      if (m?.type !== 'openTraces' || !Array.isArray(m.traces)) return;
      const traces = m.traces.filter((t) => typeof t === 'string' && allowed.has(t));
      const pick =
        traces.length > 1 ? await vscode.window.showQuickPick(traces, { title: 'Open which rollout?' }) : traces[0];
      if (pick) await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(pick), TRACE_EDITOR_VIEW_TYPE);
    });
  }
}
