/**
 * Which subscore each judge call belongs to (docs/models.md). A call's
 * criterion is matched to the deepest subscore named after it (the SDK's
 * LLMJudgeGrader gives each criterion a subscore of its own), else to the
 * subscore whose details list it (the bundled runtime's `criteria` and the
 * grader's recorded `_parameters.criteria`). Calls that match nothing are
 * returned apart, never dropped.
 */
import type { JudgeCall, SubScoreT } from '../../../common/trace/schema';

export interface JudgeCallPlacement {
  bySubscore: Map<SubScoreT, JudgeCall[]>;
  unplaced: JudgeCall[];
}

export function placeJudgeCalls(subscores: SubScoreT[], calls: JudgeCall[]): JudgeCallPlacement {
  const bySubscore = new Map<SubScoreT, JudgeCall[]>();
  const unplaced: JudgeCall[] = [];
  const all = flatten(subscores);
  for (const call of calls) {
    const c = call.criterion;
    const home = c === undefined ? undefined : (all.find((s) => s.name === c) ?? all.find((s) => listsCriterion(s, c)));
    if (!home) {
      unplaced.push(call);
      continue;
    }
    const list = bySubscore.get(home) ?? [];
    list.push(call);
    bySubscore.set(home, list);
  }
  return { bySubscore, unplaced };
}

/** Deepest first, so that a criterion's own subscore wins over the judge's that holds it. */
function flatten(subs: SubScoreT[]): SubScoreT[] {
  return subs.flatMap((s) => [...flatten(s.children ?? []), s]);
}

function listsCriterion(s: SubScoreT, criterion: string): boolean {
  const meta = s.metadata ?? {};
  const params = meta['_parameters'];
  const lists = [meta['criteria'], isRecord(params) ? params['criteria'] : undefined];
  return lists.some((list) => Array.isArray(list) && list.some((item) => criterionText(item) === criterion));
}

/** A criterion as graders record it: a string, a [requirement, weight] pair, or {requirement, ...}. */
function criterionText(item: unknown): string | undefined {
  if (typeof item === 'string') return item;
  if (Array.isArray(item) && typeof item[0] === 'string') return item[0];
  if (isRecord(item) && typeof item['requirement'] === 'string') return item['requirement'];
  return undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
