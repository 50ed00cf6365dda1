/**
 * The Testing view's golden answers (docs/grader-workbench.md): one group
 * per `<env>.golden.jsonl` holding one item per row, and one group per
 * Harbor task with a golden/ folder holding one item per known-good or
 * known-bad solution. Built from the language server's index and what the
 * caller reads of golden/ folders, without `vscode`.
 */
import type { Range, WorkspaceIndex } from '../../common/lspMessages';

/** How the runner finds what an item runs, read afresh at run time. */
export type GoldenTarget =
  | { kind: 'row'; /** URI of the golden file. */ uri: string; /** 1-based. */ line: number }
  | { kind: 'solution'; /** URI of the task.toml. */ taskUri: string; solution: string };

export interface GoldenItem {
  id: string;
  label: string;
  description: string;
  uri: string;
  range: Range;
  target: GoldenTarget;
}

export interface GoldenGroup {
  id: string;
  label: string;
  uri: string;
  items: GoldenItem[];
}

/** A Harbor task's solutions as the caller read them from its golden/ folder. */
export interface HarborSolutionEntry {
  /** `good/NAME` or `bad/NAME`. */
  solution: string;
  /** URI of its solve.sh. */
  uri: string;
  expect: string;
}

export const GOLDEN_ID_PREFIX = 'golden:';
const START: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

export function isGoldenId(id: string): boolean {
  return id.startsWith(GOLDEN_ID_PREFIX);
}

export function goldenTree(
  index: WorkspaceIndex,
  relativePath: (uri: string) => string,
  harborSolutions: (taskUri: string) => readonly HarborSolutionEntry[],
): GoldenGroup[] {
  const groups = new Map<string, GoldenGroup>();
  for (const row of index.golden ?? []) {
    let g = groups.get(row.uri);
    if (!g) {
      g = { id: `${GOLDEN_ID_PREFIX}${row.uri}`, label: relativePath(row.uri), uri: row.uri, items: [] };
      groups.set(row.uri, g);
    }
    const line = row.range.start.line + 1;
    g.items.push({
      id: `${GOLDEN_ID_PREFIX}${row.uri}#${line}`,
      label: `${row.task} ← ${row.answer}`,
      description: row.taskRef ? `expects ${row.expect}` : `expects ${row.expect} · no such task`,
      uri: row.uri,
      range: row.range,
      target: { kind: 'row', uri: row.uri, line },
    });
  }
  for (const task of index.tasks) {
    if (task.kind !== 'harbor') continue;
    const solutions = harborSolutions(task.uri);
    if (!solutions.length) continue;
    const folder = task.uri.replace(/\/task\.toml$/, '');
    const id = `${GOLDEN_ID_PREFIX}${folder}/golden`;
    groups.set(id, {
      id,
      label: `${relativePath(folder)}/golden`,
      uri: task.uri,
      items: solutions.map((s) => ({
        id: `${id}/${s.solution}`,
        label: s.solution,
        description: `expects ${s.expect}`,
        uri: s.uri,
        range: START,
        target: { kind: 'solution', taskUri: task.uri, solution: s.solution },
      })),
    });
  }
  return [...groups.values()].sort((a, b) => a.label.localeCompare(b.label));
}
