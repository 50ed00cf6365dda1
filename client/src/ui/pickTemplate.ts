/**
 * A template the user picks, for a template command that came without one:
 * from the Command Palette, or from the Environments view's context menu
 * when VS Code hands no row (the view redraws at every index change, and a
 * command landing meanwhile gets none; see pickRollout.ts).
 */
import * as vscode from 'vscode';
import type { IndexedTemplate, WorkspaceIndex } from '../../../common/lspMessages';

export async function pickTemplate(index: WorkspaceIndex, title: string): Promise<IndexedTemplate | undefined> {
  if (index.templates.length === 0) {
    void vscode.window.showInformationMessage('HUD Studio: no templates found in this workspace.');
    return undefined;
  }
  const items = index.templates.map((t) => ({ label: `${t.env}/${t.id}`, description: t.description, t }));
  return (await vscode.window.showQuickPick(items, { title, matchOnDescription: true }))?.t;
}
