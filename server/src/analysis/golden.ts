/**
 * Golden answer files (`<env>.golden.jsonl`, docs/grader-workbench.md) as
 * the language server sees them: each row's line and the span of its task
 * reference, then, once the env.py beside it is linked, whether that
 * reference names one of its tasks.
 */
import type { IndexedGoldenRow, IndexedTask } from '../../../common/lspMessages';
import { describeExpectation } from '../../../common/golden/expect';
import { parseGolden } from '../../../common/golden/rows';
import { problem } from './diagnostics';
import type { FileProblem, GoldenFacts, GoldenRowFacts, Range } from './facts';
import type { LinkResult } from './link';
import type { FileIdentity } from './linkPython';
import { byCloseness, closestName } from './names';

const TASK_VALUE = /"task"\s*:\s*("(?:[^"\\]|\\.)*")/;
const ANSWER_PREVIEW_CHARS = 40;

export function extractGoldenFacts(text: string): GoldenFacts {
  const lines = text.split('\n');
  const lineRange = (line: number): Range => {
    const raw = (lines[line] ?? '').replace(/\r$/, '');
    const lead = raw.length - raw.trimStart().length;
    return { start: { line, character: lead }, end: { line, character: raw.trimEnd().length } };
  };
  const { rows, problems } = parseGolden(text);
  const issues: FileProblem[] = problems.map((p) =>
    problem('golden-row-malformed', lineRange(p.line - 1), `golden row: ${p.message}`),
  );
  const out: GoldenRowFacts[] = rows.map((r) => {
    const line = r.line - 1;
    const range = lineRange(line);
    const raw = lines[line] ?? '';
    const m = TASK_VALUE.exec(raw);
    const taskRange =
      m?.[1] !== undefined
        ? {
            start: { line, character: m.index + m[0].length - m[1].length },
            end: { line, character: m.index + m[0].length },
          }
        : range;
    return { line, task: r.task, range, taskRange, answer: preview(r.answer), expect: describeExpectation(r.expect) };
  });
  return { kind: 'golden', rows: out, issues };
}

function preview(answer: unknown): string {
  const text = JSON.stringify(answer) ?? 'null';
  return text.length > ANSWER_PREVIEW_CHARS ? `${text.slice(0, ANSWER_PREVIEW_CHARS - 1)}…` : text;
}

/** The selector of a task reference (`env.py::NAME[i]` -> `NAME[i]`). */
function selectorOf(ref: string): string {
  const at = ref.lastIndexOf('::');
  return at < 0 ? ref : ref.slice(at + 2);
}

/**
 * Binds each row to a task of the env.py beside the file; `envTasks` is
 * undefined when there is no such env.py in the index.
 */
export function linkGolden(
  file: FileIdentity,
  facts: GoldenFacts,
  env: { rel: string; uri: string; tasks: readonly IndexedTask[] } | undefined,
): LinkResult {
  const problems: FileProblem[] = [...facts.issues];
  const golden: IndexedGoldenRow[] = [];
  const bySelector = new Map((env?.tasks ?? []).map((t) => [selectorOf(t.ref), t]));
  const names = [...bySelector.keys()];
  for (const row of facts.rows) {
    const task = bySelector.get(row.task);
    golden.push({
      uri: file.uri,
      range: row.range,
      task: row.task,
      answer: row.answer,
      expect: row.expect,
      ...(task ? { taskRef: task.ref, taskUri: task.uri } : {}),
    });
    if (task) continue;
    if (!env) {
      problems.push(
        problem(
          'golden-task-unresolved',
          row.taskRange,
          `golden row: no env.py beside ${file.rel} to find task "${row.task}" in (fix: name the file after its env.py, e.g. env.golden.jsonl beside env.py)`,
        ),
      );
      continue;
    }
    const close = closestName(row.task, names);
    const known = byCloseness(row.task, names).slice(0, 5).join(', ');
    const p = problem(
      'golden-task-unresolved',
      row.taskRange,
      `golden row: ${env.rel} has no task "${row.task}" (fix: ${close ? `did you mean "${close}"? ` : ''}use one of its tasks${known ? `: ${known}` : ''})`,
    );
    if (close)
      p.fix = {
        kind: 'replace',
        uri: file.uri,
        range: row.taskRange,
        newText: JSON.stringify(close),
        title: `Use task "${close}"`,
      };
    problems.push(p);
  }
  return { templates: [], tasks: [], problems, uses: [], golden };
}
