/**
 * Evaluations across models (docs/models.md): per-model figures and the
 * task x model matrix of a job whose runs each name the model that acted.
 */
import type { EventHub } from '../../../common/events';
import { countRuns, mean, passAtK, passes, type RunTotals } from './jobStats';
import type { ErrorPhase, TokenUsage } from '../../../common/trace/schema';

/** What a model summary needs of a run. */
export interface ModelRun {
  model?: string | undefined;
  status: string;
  reward: number | null;
  error: { phase: ErrorPhase } | null;
  tokens?: TokenUsage | undefined;
  startedAt?: string | undefined;
  endedAt?: string | undefined;
}

/** One model's figures, over the runs it acted in. */
export interface ModelSummary extends RunTotals {
  model: string;
  runs: number;
  tokens: TokenUsage;
  /** From the first of its runs starting to the last one ending. */
  wallMs: number;
}

export interface MatrixCell {
  ref: string;
  model: string;
  runs: number;
  passed: number;
  meanReward: number | null;
  passAtK: number;
  traces: string[];
}

export interface ModelMatrix {
  tasks: string[];
  models: string[];
  /** `cells[i][j]`: task i, model j. */
  cells: MatrixCell[][];
}

export function summarizeModels<R extends ModelRun & { trace?: string | undefined }>(
  tasks: readonly { ref: string; runs: readonly R[] }[],
  models: readonly string[],
  threshold: number,
  k: number,
): { models: ModelSummary[]; matrix: ModelMatrix } {
  const refs = [...new Set(tasks.map((t) => t.ref))];
  const cells = refs.map((ref) =>
    models.map((model): MatrixCell => {
      const runs = tasks.filter((t) => t.ref === ref).flatMap((t) => t.runs.filter((r) => r.model === model));
      const passed = runs.filter((r) => passes(r, threshold)).length;
      return {
        ref,
        model,
        runs: runs.length,
        passed,
        meanReward: mean(runs.map((r) => r.reward ?? 0)),
        passAtK: passAtK(runs.length, passed, k),
        traces: runs.flatMap((r) => (r.trace ? [r.trace] : [])),
      };
    }),
  );
  const summaries = models.map((model, j): ModelSummary => {
    const runs = tasks.flatMap((t) => t.runs.filter((r) => r.model === model));
    const column = cells.map((row) => row[j]!).filter((c) => c.runs > 0);
    const starts = runs.flatMap((r) => (r.startedAt ? [Date.parse(r.startedAt)] : []));
    const ends = runs.flatMap((r) => (r.endedAt ? [Date.parse(r.endedAt)] : []));
    return {
      model,
      runs: runs.length,
      ...countRuns(runs),
      passAt1: mean(column.map((c) => passAtK(c.runs, c.passed, 1))),
      passAtK: mean(column.map((c) => c.passAtK)),
      tokens: runs.reduce((sum, r) => addTokens(sum, r.tokens), { input: 0, output: 0, cached: 0 }),
      wallMs: starts.length && ends.length ? Math.max(...ends) - Math.min(...starts) : 0,
    };
  });
  return { models: summaries, matrix: { tasks: refs, models: [...models], cells } };
}

function addTokens(a: TokenUsage, b: TokenUsage | undefined): TokenUsage {
  return b ? { input: a.input + b.input, output: a.output + b.output, cached: a.cached + b.cached } : a;
}

/** Sums every agent step's usage per rollout as the events go by. */
export function countTokens(hub: EventHub): { of(rolloutId: string): TokenUsage | undefined; dispose(): void } {
  const byRollout = new Map<string, TokenUsage>();
  const off = hub.on((e) => {
    if (e.type !== 'agent.step' || !e.usage) return;
    byRollout.set(e.rolloutId, addTokens(byRollout.get(e.rolloutId) ?? { input: 0, output: 0, cached: 0 }, e.usage));
  });
  return { of: (id) => byRollout.get(id), dispose: () => void off() };
}
