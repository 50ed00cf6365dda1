/** The Runs tree: a thin adapter over {@link RunsModel}, refreshed at most every 200 ms while rollouts stream. */
import * as vscode from 'vscode';
import type { RunsModel, RunsNode } from '../runsModel';
import { toTreeItem } from './treeItem';

export class RunsView implements vscode.TreeDataProvider<RunsNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<RunsNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private timer: NodeJS.Timeout | undefined;
  private readonly unsubscribe: () => void;

  constructor(private readonly model: RunsModel) {
    this.unsubscribe = model.onChange(() => this.schedule());
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.emitter.fire(undefined);
    }, 200);
  }

  getChildren(node?: RunsNode): RunsNode[] {
    return this.model.children(node);
  }

  getTreeItem(node: RunsNode): vscode.TreeItem {
    const view = this.model.view(node);
    const open =
      node.kind === 'rollout'
        ? { command: 'hudStudio.openTrace', title: 'Open in Trace Explorer', arguments: [node] }
        : undefined;
    return toTreeItem(view, open);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.unsubscribe();
    this.emitter.dispose();
  }
}
