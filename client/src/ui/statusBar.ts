/** A status-bar item while rollouts run: how many, and a click shows the Runs view. */
import * as vscode from 'vscode';

export class RunningStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('hudStudio.running', vscode.StatusBarAlignment.Left, 10);

  constructor() {
    this.item.name = 'HUD Studio rollouts';
    this.item.command = 'hudStudio.runs.focus';
  }

  update(running: number, lastText?: string): void {
    void vscode.commands.executeCommand('setContext', 'hudStudio.running', running > 0);
    if (running > 0) {
      this.item.text = `$(sync~spin) HUD: ${running} rollout${running === 1 ? '' : 's'}`;
      this.item.tooltip = 'HUD Studio rollouts are running. Click to show the Runs view.';
      this.item.show();
    } else {
      this.item.hide();
    }
    if (lastText && running === 0) {
      // Leave the last result visible briefly: a run started from a CodeLens often finishes off-screen.
      this.item.text = `$(beaker) HUD: ${lastText}`;
      this.item.tooltip = 'Last HUD Studio rollout. Click to show the Runs view.';
      this.item.show();
    }
  }

  dispose(): void {
    this.item.dispose();
  }
}
