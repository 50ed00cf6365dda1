/** "Run task" on every task, "Run template..." on every template. */
import type { CodeLens } from 'vscode-languageserver';
import { Commands, type IndexedTask } from '../../../common/lspMessages';
import type { Workspace } from '../analysis/workspace';

/** The label is named when the task shares its line with others (`suite = [...]`, a comprehension). */
export function runTaskTitle(task: IndexedTask, named = false): string {
  const run = named ? `▶ Run task ${task.label}` : '▶ Run task';
  return task.verifier ? `${run} · verifier ${task.verifier.env}/${task.verifier.templateId}` : run;
}

/** More tasks than this on one line (`[solve(level=n) for n in range(40)]`) get one lens for the rest. */
const LENSES_PER_LINE = 6;

export function codeLenses(ws: Workspace, path: string): CodeLens[] {
  const link = ws.link(path);
  if (!link) return [];
  const uri = ws.uriOf(path);
  const lenses: CodeLens[] = [];
  const tasks = link.tasks;
  for (let i = 0; i < tasks.length;) {
    const line = tasks[i]!.range.start.line;
    let end = i + 1;
    while (end < tasks.length && tasks[end]!.range.start.line === line) end++;
    const range = { start: { line, character: 0 }, end: { line, character: 0 } };
    const shown = end - i > LENSES_PER_LINE ? LENSES_PER_LINE - 1 : end - i;
    for (const task of tasks.slice(i, i + shown)) {
      const args: Commands.RunTaskArgs = { ref: task.ref, uri };
      lenses.push({
        range,
        command: { title: runTaskTitle(task, end - i > 1), command: Commands.runTask, arguments: [args] },
      });
    }
    if (i + shown < end)
      lenses.push({
        range,
        command: {
          title: `${end - i - shown} more tasks in the Testing view`,
          command: 'workbench.view.testing.focus',
        },
      });
    i = end;
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
