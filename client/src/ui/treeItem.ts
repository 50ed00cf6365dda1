/** Turns a plain {@link NodeView} into a VS Code TreeItem. */
import * as vscode from 'vscode';
import type { NodeView } from '../runsModel';

const COLLAPSE = {
  none: vscode.TreeItemCollapsibleState.None,
  collapsed: vscode.TreeItemCollapsibleState.Collapsed,
  expanded: vscode.TreeItemCollapsibleState.Expanded,
} as const;

export function toTreeItem(v: NodeView, command?: vscode.Command): vscode.TreeItem {
  const item = new vscode.TreeItem(v.label, COLLAPSE[v.collapsible]);
  item.id = v.id;
  if (v.description !== undefined) item.description = v.description;
  if (v.tooltip !== undefined) item.tooltip = v.tooltip;
  item.iconPath = new vscode.ThemeIcon(v.icon.id, v.icon.color ? new vscode.ThemeColor(v.icon.color) : undefined);
  item.contextValue = v.contextValue;
  if (command) item.command = command;
  return item;
}
