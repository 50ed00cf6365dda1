/** "Run task" on every task, "Run template..." on every template. */
import type { CodeLens } from 'vscode-languageserver';
import { Commands, type IndexedTask } from '../../../common/lspMessages';
import type { Workspace } from '../analysis/workspace';

export function runTaskTitle(task: IndexedTask): string {
  return task.verifier ? `▶ Run task · verifier ${task.verifier.env}/${task.verifier.templateId}` : '▶ Run task';
}

export function codeLenses(ws: Workspace, path: string): CodeLens[] {
  const link = ws.link(path);
  if (!link) return [];
  const uri = ws.uriOf(path);
  const lenses: CodeLens[] = [];
  for (const task of link.tasks) {
    const args: Commands.RunTaskArgs = { ref: task.ref, uri };
    const line = task.range.start.line;
    lenses.push({
      range: { start: { line, character: 0 }, end: { line, character: 0 } },
      command: { title: runTaskTitle(task), command: Commands.runTask, arguments: [args] },
    });
  }
  for (const t of link.templates) {
    const args: Commands.RunTemplateArgs = { uri, env: t.env, templateId: t.id };
    lenses.push({
      range: t.range,
      command: { title: '▶ Run template…', command: Commands.runTemplate, arguments: [args] },
    });
  }
  return lenses;
}
