/**
 * Where a finished rollout's result is written in the editor: the task's
 * line, and the grading `yield` line of the template(s) that graded it. With
 * a verifier, the actor template's line shows the actor's provisional grade
 * and the verifier template's line the reward of record.
 *
 * One inline result per line (docs/grader-workbench.md, "Inline results"):
 * VS Code draws a failed or errored test's message at the end of the test
 * item's line, which is the task's line, whatever the message's location.
 * There the Testing message speaks (its first line carries the same facts,
 * see testMessage in ./outcome.ts) and HUD Studio's own text yields.
 */
import type { WorkspaceIndex } from '../../common/lspMessages';
import type { GradeResult } from '../../common/trace/schema';
import { type ShownOutcome, type TestVerdict, hoverMarkdown, inlineText, verdict } from './outcome';
import { findTask, templateOfTask, verifierOfTask } from './taskLookup';

export interface InlineResult {
  uri: string;
  /** 0-based line. */
  line: number;
  text: string;
  hover: string;
  /** Set when VS Code's Testing message is drawn on this line instead: nothing of ours is painted there. */
  drawnBy?: 'testing';
}

/** Whether VS Code draws a Testing message on the task's line for this verdict (it does for failed and errored). */
function verdictDrawsOnTaskLine(v: TestVerdict): boolean {
  return v === 'failed' || v === 'errored';
}

/** Whether VS Code draws this run's Testing message on the task's line. */
export function testingDrawsOnTaskLine(outcome: ShownOutcome, passThreshold: number): boolean {
  return verdictDrawsOnTaskLine(verdict(outcome, passThreshold));
}

/**
 * The task lines VS Code's Testing message holds now: the Testing view
 * reports every run of a task (ui/testing.ts) and its last verdict says
 * whether a message is drawn there. What writes on a task's line later,
 * outside a run (a regrade's delta), asks here and yields the same way.
 */
export class TestingTaskLines {
  private readonly held = new Set<string>();

  /** The Testing view reported a run of a task (its taskKey, ./taskLookup.ts) with this verdict. */
  reported(task: string, v: TestVerdict): void {
    if (verdictDrawsOnTaskLine(v)) this.held.add(task);
    else this.held.delete(task);
  }

  holds(task: string): boolean {
    return this.held.has(task);
  }
}

export function inlineResults(
  index: WorkspaceIndex,
  target: { ref: string; uri: string },
  outcome: ShownOutcome,
  actorGrade?: GradeResult | null,
  /** The threshold the Testing view judged this run by, when the run was reported there. */
  testingThreshold?: number,
): InlineResult[] {
  const task = findTask(index.tasks, target.ref, target.uri);
  if (!task) return [];
  const { ref } = target;
  const yields = testingThreshold !== undefined && testingDrawsOnTaskLine(outcome, testingThreshold);
  const out: InlineResult[] = [
    {
      uri: task.uri,
      line: task.range.start.line,
      text: inlineText(outcome),
      hover: hoverMarkdown(outcome, ref),
      ...(yields ? { drawnBy: 'testing' as const } : {}),
    },
  ];
  const tpl = templateOfTask(index, task);
  const ver = verifierOfTask(index, task);
  if (tpl?.gradeYieldRange) {
    const provisional: ShownOutcome | undefined =
      ver && actorGrade
        ? { status: 'completed', reward: actorGrade.reward, result: actorGrade, error: null }
        : undefined;
    const o = ver ? provisional : outcome;
    if (o) {
      const text = ver ? `${inlineText(o)} (actor, provisional)` : inlineText(o);
      out.push({
        uri: tpl.uri,
        line: tpl.gradeYieldRange.start.line,
        text,
        hover: hoverMarkdown(o, `${ref} · ${tpl.env}/${tpl.id}`),
      });
    }
  }
  if (ver?.gradeYieldRange) {
    out.push({
      uri: ver.uri,
      line: ver.gradeYieldRange.start.line,
      text: inlineText(outcome),
      hover: hoverMarkdown(outcome, `${ref} · verifier ${ver.env}/${ver.id}`),
    });
  }
  // One line may be both (a task written on its template's yield line is unusual); keep the first.
  const seen = new Set<string>();
  return out.filter((r) => {
    const k = `${r.uri}#${r.line}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
