/** Reads `hudStudio.*` from VS Code and parses it (see ../settings.ts); reports each bad value once. */
import * as vscode from 'vscode';
import { type Settings, parseSettings, readRawSettings } from '../settings';

const reported = new Set<string>();

export function readSettings(scope?: vscode.Uri): Settings {
  const cfg = vscode.workspace.getConfiguration('hudStudio', scope);
  const { settings, problems } = parseSettings(readRawSettings((key) => cfg.get(key)));
  for (const p of problems) {
    if (reported.has(p.message)) continue;
    reported.add(p.message);
    void vscode.window.showWarningMessage(`HUD Studio: ${p.message}`, 'Open Settings').then((a) => {
      if (a)
        void vscode.commands.executeCommand(
          'workbench.action.openSettings',
          p.setting.split('.').slice(0, 2).join('.'),
        );
    });
  }
  return settings;
}
