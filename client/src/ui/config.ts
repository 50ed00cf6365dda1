/** Reads `hudStudio.*` from VS Code and parses it (see ../settings.ts); reports each bad value once. */
import * as vscode from 'vscode';
import { type Settings, parseSettings } from '../settings';

const KEYS = [
  'runtime', 'runtimeUrl', 'dockerHost', 'imageOverrides', 'sdk', 'passThreshold', 'maxConcurrency', 'timeouts',
  'traceFolder', 'agent', 'agentAnswer', 'agentCommand', 'batchAgent', 'harborAgent', 'envFiles',
] as const;

const reported = new Set<string>();

export function readSettings(scope?: vscode.Uri): Settings {
  const cfg = vscode.workspace.getConfiguration('hudStudio', scope);
  const raw: Record<string, unknown> = {};
  for (const k of KEYS) raw[k] = cfg.get(k);
  const { settings, problems } = parseSettings(raw);
  for (const p of problems) {
    if (reported.has(p.message)) continue;
    reported.add(p.message);
    void vscode.window.showWarningMessage(`HUD Studio: ${p.message}`, 'Open Settings').then((a) => {
      if (a) void vscode.commands.executeCommand('workbench.action.openSettings', p.setting.split('.').slice(0, 2).join('.'));
    });
  }
  return settings;
}
