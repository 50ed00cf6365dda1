/** Finds what sits under a position, across the linked workspace. */
import type { IndexedTask, IndexedTemplate, Position, Range } from '../../../common/lspMessages';
import type { TemplateUse } from '../analysis/link';
import type { Workspace } from '../analysis/workspace';

export function contains(range: Range, pos: Position): boolean {
  const { start, end } = range;
  if (pos.line < start.line || pos.line > end.line) return false;
  if (pos.line === start.line && pos.character < start.character) return false;
  if (pos.line === end.line && pos.character > end.character) return false;
  return true;
}

export function findTemplate(ws: Workspace, path: string, env: string, id: string): IndexedTemplate | undefined {
  return ws.link(path)?.templates.find((t) => t.env === env && t.id === id);
}

export type Hit =
  | { kind: 'use'; use: TemplateUse; template: IndexedTemplate | undefined; task: IndexedTask | undefined }
  | { kind: 'template'; template: IndexedTemplate }
  | { kind: 'task'; task: IndexedTask };

/** The most specific thing at `pos`: a template call, a template definition, then a task. */
export function hitAt(ws: Workspace, path: string, pos: Position): Hit | undefined {
  const link = ws.link(path);
  if (!link) return undefined;
  const task = link.tasks.find((t) => contains(t.range, pos) || (t.verifier && contains(t.verifier.range, pos)));
  const use = link.uses.find((u) => contains(u.range, pos));
  if (use) return { kind: 'use', use, template: findTemplate(ws, use.templatePath, use.env, use.templateId), task };
  const template = link.templates.find((t) => contains(t.range, pos));
  if (template) return { kind: 'template', template };
  if (task) return { kind: 'task', task };
  return undefined;
}
