/**
 * The Testing view's item tree, from the language server's index: one item
 * per file (env.py, task file, task.toml) holding one item per task. Task
 * item ids are task references (docs/hud-protocol.md), never line numbers.
 */
import type { Range, WorkspaceIndex } from '../../common/lspMessages';

export interface TestTask {
  /** The task reference. */
  id: string;
  label: string;
  uri: string;
  range: Range;
  description?: string;
}

export interface TestFile {
  /** The file's URI. */
  id: string;
  label: string;
  uri: string;
  tasks: TestTask[];
}

export function testTree(index: WorkspaceIndex, relativePath: (uri: string) => string): TestFile[] {
  const files = new Map<string, TestFile>();
  for (const t of index.tasks) {
    let f = files.get(t.uri);
    if (!f) {
      f = { id: t.uri, label: relativePath(t.uri), uri: t.uri, tasks: [] };
      files.set(t.uri, f);
    }
    const description = t.verifier
      ? `verifier ${t.verifier.env}/${t.verifier.templateId}`
      : t.environmentMode
        ? `verifier ${t.environmentMode}`
        : t.templateId
          ? `${t.env}/${t.templateId}`
          : undefined;
    f.tasks.push({ id: t.ref, label: t.label, uri: t.uri, range: t.range, ...(description ? { description } : {}) });
  }
  return [...files.values()].sort((a, b) => a.label.localeCompare(b.label));
}
