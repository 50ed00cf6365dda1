/**
 * Where a finished rollout's result is written in the editor: the task's
 * line, and the grading `yield` line of the template(s) that graded it. With
 * a verifier, the actor template's line shows the actor's provisional grade
 * and the verifier template's line the reward of record.
 */
import type { WorkspaceIndex } from '../../common/lspMessages';
import type { GradeResult } from '../../common/trace/schema';
import { type ShownOutcome, hoverMarkdown, inlineText } from './outcome';

export interface InlineResult {
  uri: string;
  /** 0-based line. */
  line: number;
  text: string;
  hover: string;
}

export function inlineResults(
  index: WorkspaceIndex,
  ref: string,
  outcome: ShownOutcome,
  actorGrade?: GradeResult | null,
): InlineResult[] {
  const task = index.tasks.find((t) => t.ref === ref);
  if (!task) return [];
  const out: InlineResult[] = [
    { uri: task.uri, line: task.range.start.line, text: inlineText(outcome), hover: hoverMarkdown(outcome, ref) },
  ];
  const tpl =
    task.env && task.templateId
      ? index.templates.find((t) => t.env === task.env && t.id === task.templateId)
      : undefined;
  const ver = task.verifier
    ? index.templates.find((t) => t.env === task.verifier!.env && t.id === task.verifier!.templateId)
    : undefined;
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
