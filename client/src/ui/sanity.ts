/**
 * "HUD: Check Graders for Gaming" (docs/grader-workbench.md, "In the
 * editor"): runs the sanity check on an env.py, puts one warning per gamed
 * task on its template and one error per failed golden row on that row in
 * the Problems view ("HUD sanity"), writes the table to the output and sums
 * it up in a notification. A run's problems go as soon as one of its files
 * changes (in an editor or on disk), and a passing re-run clears them; a
 * golden row that passes in the Testing view loses its error.
 */
import * as vscode from 'vscode';
import type { WorkspaceIndex } from '../../../common/lspMessages';
import type { EnvNode } from '../environmentsModel';
import { goldenPathFor } from '../../../common/golden/rows';
import { type SanityResult, goldenRowDiagnostics, sanityDiagnostics, sanitySummary, sanityTable } from '../sanityView';
import { groupBy } from '../groupBy';
import type { RegisterCommand } from './commands';
import type { SanityRunResult } from './runner';

export const SANITY_COMMAND = 'hudStudio.sanityCheck';
const SOURCE = 'HUD sanity';

export interface SanityDeps {
  index: () => WorkspaceIndex;
  locate: (node: EnvNode) => { uri: string; line: number } | undefined;
  sanity: (uri: string) => Promise<SanityRunResult>;
  output: vscode.OutputChannel;
}

/** What other parts of the editor may tell the sanity check's Problems. */
export interface SanityProblems {
  /** A golden row (1-based line) passed elsewhere (the Testing view): its failure from the last check is gone. */
  goldenRowPassed(goldenUri: string, line: number): void;
}

export function registerSanity(
  context: vscode.ExtensionContext,
  deps: SanityDeps,
  reg: RegisterCommand,
): SanityProblems {
  const diagnostics = vscode.languages.createDiagnosticCollection(SOURCE);
  context.subscriptions.push(diagnostics);
  /** The files each checked env.py put warnings on (a template may live in another file). */
  const placed = new Map<string, Set<string>>();

  const clearRun = (checked: string) => {
    for (const uri of placed.get(checked) ?? []) diagnostics.delete(vscode.Uri.parse(uri));
    placed.delete(checked);
  };
  const changed = (uri: vscode.Uri) => {
    const text = uri.toString();
    for (const [checked, uris] of [...placed]) if (checked === text || uris.has(text)) clearRun(checked);
  };
  // A golden file is rarely open: a save elsewhere (or git) reaches us through the file system.
  const disk = vscode.workspace.createFileSystemWatcher('**/*.{py,jsonl}');
  context.subscriptions.push(
    disk,
    disk.onDidChange(changed),
    disk.onDidCreate(changed),
    disk.onDidDelete(changed),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.contentChanges.length > 0) changed(e.document.uri);
    }),
  );

  reg(SANITY_COMMAND, async (arg?: vscode.Uri | EnvNode) => {
    const uri = fileOf(arg, deps);
    if (!uri) {
      void vscode.window.showInformationMessage('HUD Studio: open an env.py to check its graders for gaming.');
      return;
    }
    const checked = uri.toString();
    const done = await deps.sanity(checked);
    if (!done.ran) {
      void vscode.window.showWarningMessage(`HUD Studio: the sanity check did not run: ${done.reason}`);
      return;
    }
    const results: SanityResult[] = done.results;
    clearRun(checked);
    const found = sanityDiagnostics(deps.index(), checked, results);
    const goldenUri = vscode.Uri.file(goldenPathFor(uri.fsPath)).toString();
    const byFile = groupBy([...found, ...goldenRowDiagnostics(goldenUri, results)], (f) => f.uri);
    for (const [file, list] of byFile) {
      const shown = list.map((f) => {
        const d = new vscode.Diagnostic(
          new vscode.Range(f.line, 0, f.line, Number.MAX_SAFE_INTEGER),
          f.message,
          f.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning,
        );
        d.source = SOURCE;
        d.code = f.ref;
        return d;
      });
      diagnostics.set(vscode.Uri.parse(file), shown);
    }
    placed.set(checked, new Set(byFile.keys()));

    const summary = `${sanitySummary(results)}${done.cancelled ? ' (cancelled before every task ran)' : ''}`;
    deps.output.appendLine(`HUD Studio sanity check of ${vscode.workspace.asRelativePath(uri)}: ${summary}`);
    if (results.length) deps.output.appendLine(sanityTable(results));
    const problems = byFile.size > 0;
    const show = problems ? 'Show Problems' : 'Show Table';
    const message = `HUD Studio: ${summary}.`;
    const pick = problems
      ? await vscode.window.showWarningMessage(message, show)
      : await vscode.window.showInformationMessage(message, show);
    if (pick === 'Show Problems') await vscode.commands.executeCommand('workbench.actions.view.problems');
    else if (pick) deps.output.show(true);
  });

  return {
    goldenRowPassed: (goldenUri, line) => {
      // Only golden rows' problems live in a golden file; the gamed graders' are on templates.
      const uri = vscode.Uri.parse(goldenUri);
      const left = (diagnostics.get(uri) ?? []).filter((d) => d.range.start.line !== line - 1);
      diagnostics.set(uri, left);
    },
  };
}

function fileOf(arg: vscode.Uri | EnvNode | undefined, deps: SanityDeps): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg;
  if (arg) {
    const loc = deps.locate(arg);
    return loc && vscode.Uri.parse(loc.uri);
  }
  return vscode.window.activeTextEditor?.document.uri;
}
