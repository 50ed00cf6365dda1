/** Hover: a template's signature, environment, prompt and result; a task's verifier. */
import type { Hover } from 'vscode-languageserver';
import type { IndexedTask, IndexedTemplate, Position } from '../../../common/lspMessages';
import { signatureText } from '../analysis/argsCheck';
import { sameRange } from '../analysis/lines';
import type { Workspace } from '../analysis/workspace';
import { contains, hitAt } from './lookup';

const PREVIEW_CHARS = 400;

export function templateMarkdown(t: IndexedTemplate): string {
  const lines = [
    '```python',
    `async def ${signatureText(t.functionName, t.params)}`,
    '```',
    `**Template** \`${t.id}\` · environment \`${t.env}\``,
  ];
  if (t.broken) lines.push('', '_Its definition has a syntax error: this signature is a guess until it is fixed._');
  if (t.description) lines.push('', t.description);
  if (t.promptPreview !== undefined) {
    const preview =
      t.promptPreview.length > PREVIEW_CHARS ? `${t.promptPreview.slice(0, PREVIEW_CHARS)}…` : t.promptPreview;
    lines.push('', '**Prompt**', '', ...preview.split('\n').map((l) => `> ${l}`));
  } else if (t.agentless) {
    lines.push('', 'Agent-less (empty first yield): usable as a verifier.');
  }
  if (t.resultKeys.length) lines.push('', `**Result keys:** ${t.resultKeys.map((k) => `\`${k}\``).join(', ')}`);
  if (t.readsKeys.length)
    lines.push('', `**Reads from the actor's result:** ${t.readsKeys.map((k) => `\`${k}\``).join(', ')}`);
  return lines.join('\n');
}

export function taskMarkdown(task: IndexedTask): string {
  const lines = [`**Task** \`${task.ref}\``];
  if (task.kind === 'harbor') lines.push('', `Harbor task, verifier environment: ${task.environmentMode ?? 'shared'}`);
  if (task.env && task.templateId) lines.push('', `Template \`${task.templateId}\` · environment \`${task.env}\``);
  if (task.verifier) {
    const v = task.verifier;
    lines.push(
      '',
      `**Verifier** \`${v.env}/${v.templateId}\` — ${v.sameEnvironment ? "same environment: runs on the actor's substrate right after it" : "different environment: a fresh substrate; only the actor's result reaches it"}`,
    );
  }
  return lines.join('\n');
}

/** The elements of one comprehension: tasks made by the same call, on the same range. */
function comprehensionMarkdown(tasks: IndexedTask[]): string {
  const first = tasks[0]!;
  const lines = [
    `**${tasks.length} tasks** \`${first.ref}\` … \`${tasks.at(-1)!.label}\`, one per element of the comprehension`,
  ];
  if (first.env && first.templateId) lines.push('', `Template \`${first.templateId}\` · environment \`${first.env}\``);
  for (const t of tasks)
    if (t.verifier) lines.push('', `**Verifier** of \`${t.label}\`: \`${t.verifier.env}/${t.verifier.templateId}\``);
  return lines.join('\n');
}

/** What hovering over a task's own text says: all of a comprehension's elements at once. */
function tasksMarkdown(ws: Workspace, path: string, task: IndexedTask, pos: Position): string {
  if (!contains(task.range, pos)) return taskMarkdown(task); // on its verifier, set for that one task
  const same = (ws.link(path)?.tasks ?? []).filter((t) => sameRange(t.range, task.range));
  return same.length > 1 ? comprehensionMarkdown(same) : taskMarkdown(task);
}

export function hover(ws: Workspace, path: string, pos: Position): Hover | null {
  const hit = hitAt(ws, path, pos);
  if (!hit) return null;
  let value: string;
  let range;
  switch (hit.kind) {
    case 'use':
      value = [
        hit.template ? templateMarkdown(hit.template) : `Template \`${hit.use.env}/${hit.use.templateId}\``,
        ...(hit.task ? ['', '---', '', tasksMarkdown(ws, path, hit.task, pos)] : []),
      ].join('\n');
      range = hit.use.range;
      break;
    case 'template':
      value = templateMarkdown(hit.template);
      range = hit.template.range;
      break;
    case 'task':
      value = tasksMarkdown(ws, path, hit.task, pos);
      range = hit.task.range;
      break;
  }
  return { contents: { kind: 'markdown', value }, range };
}
