/**
 * What the editor shows about a sanity check (docs/grader-workbench.md, "In
 * the editor"): one warning per gamed task on its template's `def` line, one
 * error per failed golden row on its line, a table for the output, and a
 * one-line summary. Plain decisions without VS
 * Code, so they are tested as they are.
 */
import type { WorkspaceIndex } from '../../common/lspMessages';
import { formatScore } from './engine/grade';
import { goldenReport, type ReportedOutcome } from './goldenReport';
import type { ProbeOutcome, TaskSanity } from './engine/sanity/run';
import { findTask, templateOfTask } from './taskLookup';

/** The part of a task's sanity result the editor shows. */
export interface SanityResult {
  task: { ref: string; line: number | undefined };
  probes: ProbeOutcome[];
  gamedBy: ProbeOutcome[];
  golden: (ReportedOutcome & Pick<TaskSanity['golden'][number], 'row'>)[];
}

/** A problem with one task (gamed, or a golden row that failed), placed on a 0-based line of a file. */
export interface SanityDiagnostic {
  uri: string;
  line: number;
  ref: string;
  message: string;
  /** A gamed grader is a warning; a golden row that missed its expectation fails like a test, an error. */
  severity: 'warning' | 'error';
}

const ANSWER_CHARS = 40;

function clip(s: string, n = ANSWER_CHARS): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > n ? `${one.slice(0, n)}…` : one;
}

/** The probe's answer as people read it: `the empty answer`, `the Literal value "b"`. */
export function probeAnswerText(p: Pick<ProbeOutcome, 'probe' | 'answer'>): string {
  const quoted = JSON.stringify(clip(p.answer));
  switch (p.probe) {
    case 'nop':
      return 'no answer at all';
    case 'empty':
      return 'the empty answer';
    case 'echo':
      return `the prompt echoed back (${quoted})`;
    case 'long':
      return `a long answer ${p.answer}`;
    case 'fake-result':
      return `a fake result frame ${quoted}`;
    case 'literal':
      return `the Literal value ${quoted}`;
    case 'source-string':
      return `the string ${quoted} from the grader's source`;
    case 'source-strings':
      return `all strings of the grader's source at once (${quoted})`;
    default:
      return `the ${p.probe} answer ${quoted}`;
  }
}

function rewardText(r: number | null): string {
  return r === null ? '-' : formatScore(r);
}

/** `the empty answer scored 1.00; a sound grader gives 0`. */
export function gamedText(p: Pick<ProbeOutcome, 'probe' | 'answer' | 'reward'>): string {
  return `${probeAnswerText(p)} scored ${rewardText(p.reward)}; a sound grader gives 0`;
}

function labelOf(ref: string): string {
  const at = ref.lastIndexOf('::');
  return at >= 0 ? ref.slice(at + 2) : ref;
}

/**
 * Where a task's warning goes: its template's `def` line when the index knows
 * it, else the task's own line in the index, else the line discovery reported
 * in the checked file (1-based there).
 */
function placeOf(
  index: WorkspaceIndex,
  ref: string,
  fileUri: string,
  line: number | undefined,
): { uri: string; line: number } {
  const task = findTask(index.tasks, ref, fileUri);
  const template = task && templateOfTask(index, task);
  if (template) return { uri: template.uri, line: template.range.start.line };
  if (task) return { uri: task.uri, line: task.range.start.line };
  return { uri: fileUri, line: Math.max(0, (line ?? 1) - 1) };
}

/** One warning per gamed task; a task no probe gamed gets none. */
export function sanityDiagnostics(index: WorkspaceIndex, fileUri: string, results: SanityResult[]): SanityDiagnostic[] {
  const out: SanityDiagnostic[] = [];
  for (const r of results) {
    if (r.gamedBy.length === 0) continue;
    const [first, ...rest] = r.gamedBy;
    if (!first) continue;
    // Probes that send several answers (fake-result, source-string) are named once, with their best reward.
    const more = new Map<string, number | null>();
    for (const p of rest) {
      if (p.probe === first.probe) continue;
      const seen = more.get(p.probe);
      more.set(p.probe, seen === undefined || (p.reward ?? -Infinity) > (seen ?? -Infinity) ? p.reward : seen);
    }
    const also = more.size
      ? `; also gamed by ${[...more].map(([probe, reward]) => `${probe} (${rewardText(reward)})`).join(', ')}`
      : '';
    out.push({
      ...placeOf(index, r.task.ref, fileUri, r.task.line),
      ref: r.task.ref,
      message: `Gameable grader (task ${labelOf(r.task.ref)}): ${gamedText(first)}${also}.`,
      severity: 'warning',
    });
  }
  return out;
}

/**
 * One problem per golden row that did not pass, on the row's own line of the
 * golden file: both rewards and the subscores that missed, worded as the
 * Testing view's message (../goldenReport.ts). A row that could not be
 * graded is a warning saying why.
 */
export function goldenRowDiagnostics(goldenUri: string, results: SanityResult[]): SanityDiagnostic[] {
  const out: SanityDiagnostic[] = [];
  for (const r of results) {
    for (const g of r.golden) {
      if (g.passed) continue;
      const report = goldenReport(g);
      const failed = report.verdict === 'failed';
      out.push({
        uri: goldenUri,
        line: Math.max(0, g.row.line - 1),
        ref: r.task.ref,
        message: `${failed ? 'Golden row failed' : 'Golden row could not be graded'} (task ${labelOf(r.task.ref)}): ${report.message}`,
        severity: failed ? 'error' : 'warning',
      });
    }
  }
  return out;
}

/** A table for the output: task, probe, answer, reward, and a mark on each probe that gamed the grader. */
export function sanityTable(results: SanityResult[]): string {
  const rows: string[][] = [['task', 'probe', 'answer', 'reward', '']];
  for (const r of results) {
    const task = labelOf(r.task.ref);
    for (const p of r.probes) {
      const mark = p.gamed ? 'GAMED' : p.error ? `could not run: ${clip(p.error, 80)}` : '';
      rows.push([task, p.probe, clip(p.answer), rewardText(p.reward), mark]);
    }
    for (const g of r.golden) {
      const mark = g.passed ? '' : `FAILED, expected ${g.expected}`;
      rows.push([
        task,
        `golden line ${g.row.line}`,
        clip(typeof g.row.answer === 'string' ? g.row.answer : JSON.stringify(g.row.answer ?? null)),
        rewardText(g.reward),
        mark,
      ]);
    }
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => (row[c] ?? '').length)));
  return rows
    .map((row) =>
      row
        .map((cell, c) => cell.padEnd(widths[c] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `2 of 5 tasks gameable` (and the golden rows that failed, when some did). */
export function sanitySummary(results: SanityResult[]): string {
  const gameable = results.filter((r) => r.gamedBy.length > 0).length;
  const golden = results.flatMap((r) => r.golden).filter((g) => !g.passed).length;
  const goldenText = golden ? `; ${golden} golden row${golden === 1 ? '' : 's'} failed` : '';
  return `${gameable} of ${results.length} task${results.length === 1 ? '' : 's'} gameable${goldenText}`;
}
