/**
 * Tasks and templates of the index, looked up the one way every view does.
 *
 * A task reference is the task's file path relative to its workspace
 * folder, so two folders of a multi-root workspace that hold a file at the
 * same relative path (each its own `env.py`) give their tasks the same
 * references, and their templates the same environment and id. Where the
 * caller knows the task's file, its URI tells them apart; a URI spelled
 * otherwise than the index spells it falls back to the first task with that
 * reference. A task's templates are the ones its links resolved to.
 */
import type { IndexedTask, IndexedTemplate, WorkspaceIndex } from '../../common/lspMessages';

export function findTask(tasks: readonly IndexedTask[], ref: string, uri?: string): IndexedTask | undefined {
  return inFile(tasks, (t) => t.ref === ref, uri);
}

/** What tells one task from every other of the workspace: its reference alone does not. */
export function taskKey(ref: string, uri: string): string {
  return `${uri}\u0000${ref}`;
}

/** The template the task calls. */
export function templateOfTask(index: WorkspaceIndex, task: IndexedTask): IndexedTemplate | undefined {
  return task.env === undefined || task.templateId === undefined
    ? undefined
    : templateAt(index, task.env, task.templateId, task.templateUri);
}

/** The template of the task's verifier. */
export function verifierOfTask(index: WorkspaceIndex, task: IndexedTask): IndexedTemplate | undefined {
  const v = task.verifier;
  return v && templateAt(index, v.env, v.templateId, v.templateUri);
}

function templateAt(
  index: WorkspaceIndex,
  env: string,
  id: string,
  uri: string | undefined,
): IndexedTemplate | undefined {
  return inFile(index.templates, (t) => t.env === env && t.id === id, uri);
}

/** The item that matches and is in file `uri`; else the first that matches. */
function inFile<T extends { uri: string }>(
  items: readonly T[],
  matches: (item: T) => boolean,
  uri?: string,
): T | undefined {
  let first: T | undefined;
  for (const item of items) {
    if (!matches(item)) continue;
    if (uri === undefined || item.uri === uri) return item;
    first ??= item;
  }
  return first;
}
