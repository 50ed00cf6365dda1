/**
 * A task of the index by its reference. A reference is the task's file path
 * relative to its workspace folder, so two folders of a multi-root workspace
 * that hold a file at the same relative path (each its own `env.py`) give
 * their tasks the same references. Where the caller knows the task's file,
 * its URI tells them apart; a URI spelled otherwise than the index spells it
 * falls back to the first task with that reference.
 */
import type { IndexedTask } from '../../common/lspMessages';

export function findTask(tasks: readonly IndexedTask[], ref: string, uri?: string): IndexedTask | undefined {
  let first: IndexedTask | undefined;
  for (const t of tasks) {
    if (t.ref !== ref) continue;
    if (uri === undefined || t.uri === uri) return t;
    first ??= t;
  }
  return first;
}
