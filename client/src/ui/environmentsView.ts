/** The Environments tree: a thin adapter over {@link EnvironmentsModel}. */
import * as vscode from 'vscode';
import type { EnvNode, EnvironmentsModel } from '../environmentsModel';
import { toTreeItem } from './treeItem';

export class EnvironmentsView implements vscode.TreeDataProvider<EnvNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<EnvNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;

  constructor(private readonly model: EnvironmentsModel) {}

  refresh(): void {
    this.emitter.fire(undefined);
  }

  getChildren(node?: EnvNode): EnvNode[] {
    return this.model.children(node);
  }

  getTreeItem(node: EnvNode): vscode.TreeItem {
    const loc = this.model.location(node);
    const open = loc ? { command: 'hudStudio.openTask', title: 'Open', arguments: [node] } : undefined;
    return toTreeItem(this.model.view(node), open);
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
