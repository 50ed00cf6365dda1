/**
 * After a run, a CodeLens above the task opens its trace in the explorer and
 * shows the reward (the language server's "Run task" lens stays beside it).
 */
import * as vscode from 'vscode';
import type { WorkspaceIndex } from '../../../common/lspMessages';
import { type RolloutOutcome, inlineText } from '../outcome';
import { findTask, taskKey } from '../taskLookup';

export interface LastRun {
  rolloutId: string;
  outcome: RolloutOutcome;
}

export class TraceLens implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.emitter.event;
  private index: WorkspaceIndex = { version: 0, environments: [], templates: [], tasks: [] };
  /** By taskKey: a task of another folder with the same reference keeps its own lens. */
  private readonly last = new Map<string, LastRun>();

  /** `staleNote` says why a run is stale (its template changed since), or undefined when it is current. */
  constructor(private readonly staleNote: (rolloutId: string) => string | undefined = () => undefined) {}

  /** The files changed: stale marks may have come or gone. */
  refresh(): void {
    this.emitter.fire();
  }

  setIndex(index: WorkspaceIndex): void {
    this.index = index;
    this.emitter.fire();
  }

  record(target: { ref: string; uri: string }, run: LastRun): void {
    // Keyed by the index's spelling of the file, which the lenses look up by.
    const uri = findTask(this.index.tasks, target.ref, target.uri)?.uri ?? target.uri;
    this.last.set(taskKey(target.ref, uri), run);
    this.emitter.fire();
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const uri = document.uri.toString();
    const out: vscode.CodeLens[] = [];
    const here = this.index.tasks.filter((t) => vscode.Uri.parse(t.uri).toString() === uri);
    // On a line of several tasks (a list, a comprehension) each lens says whose run it opens.
    const perLine = new Map<number, number>();
    for (const t of here) perLine.set(t.range.start.line, (perLine.get(t.range.start.line) ?? 0) + 1);
    for (const t of here) {
      const run = this.last.get(taskKey(t.ref, t.uri));
      if (!run) continue;
      const range = new vscode.Range(t.range.start.line, 0, t.range.start.line, 0);
      const stale = this.staleNote(run.rolloutId);
      const whose = perLine.get(t.range.start.line)! > 1 ? `${t.label}: ` : '';
      out.push(
        new vscode.CodeLens(range, {
          title: `$(open-preview) ${whose}${inlineText(run.outcome)}${stale ? ` · stale (${stale})` : ''}`,
          tooltip: 'Open this run in the trace explorer',
          command: 'hudStudio.openTrace',
          arguments: [{ rolloutId: run.rolloutId }],
        }),
      );
      if (stale)
        out.push(
          new vscode.CodeLens(range, {
            title: 'Show Template Diff',
            tooltip: 'The template as this run ran it, against the file now',
            command: 'hudStudio.showTemplateDiff',
            arguments: [{ rolloutId: run.rolloutId }],
          }),
        );
    }
    return out;
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
