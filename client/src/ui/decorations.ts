/**
 * Inline grader results: end-of-line text after a run, a hover with the
 * full breakdown, cleared as soon as the file changes (the text would no
 * longer describe what is on screen). A line whose result VS Code's Testing
 * message already shows keeps its entry (so an older text is replaced) but
 * paints nothing (../inlineResults.ts).
 */
import * as vscode from 'vscode';
import type { InlineResult } from '../inlineResults';

export class InlineResultDecorations implements vscode.Disposable {
  private readonly type = vscode.window.createTextEditorDecorationType({
    after: { margin: '0 0 0 2em', color: new vscode.ThemeColor('editorCodeLens.foreground'), fontStyle: 'italic' },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  });
  /** uri -> line -> result */
  private readonly byUri = new Map<string, Map<number, InlineResult>>();
  private readonly subs: vscode.Disposable[] = [];

  constructor() {
    this.subs.push(
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length && this.byUri.delete(e.document.uri.toString()))
          this.paint(e.document.uri.toString());
      }),
      vscode.window.onDidChangeVisibleTextEditors(() => this.paintAll()),
    );
  }

  show(results: InlineResult[]): void {
    const touched = new Set<string>();
    for (const r of results) {
      const key = vscode.Uri.parse(r.uri).toString();
      let lines = this.byUri.get(key);
      if (!lines) this.byUri.set(key, (lines = new Map<number, InlineResult>()));
      lines.set(r.line, r);
      touched.add(key);
    }
    for (const u of touched) this.paint(u);
  }

  clear(): void {
    const uris = [...this.byUri.keys()];
    this.byUri.clear();
    for (const u of uris) this.paint(u);
  }

  private paintAll(): void {
    for (const e of vscode.window.visibleTextEditors) this.paintEditor(e);
  }

  private paint(uri: string): void {
    for (const e of vscode.window.visibleTextEditors) if (e.document.uri.toString() === uri) this.paintEditor(e);
  }

  private paintEditor(editor: vscode.TextEditor): void {
    const lines = this.byUri.get(editor.document.uri.toString());
    const options: vscode.DecorationOptions[] = [];
    for (const r of lines?.values() ?? []) {
      if (r.drawnBy || r.line >= editor.document.lineCount) continue;
      const end = editor.document.lineAt(r.line).range.end;
      const hover = new vscode.MarkdownString(r.hover);
      hover.isTrusted = false;
      options.push({
        range: new vscode.Range(end, end),
        hoverMessage: hover,
        renderOptions: { after: { contentText: r.text } },
      });
    }
    editor.setDecorations(this.type, options);
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.type.dispose();
  }
}
