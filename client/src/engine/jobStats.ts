/** Statistics of a job: mean reward and pass@k over groups of runs. */
import type { ErrorPhase } from '../../../common/trace/schema';

/**
 * Unbiased pass@k for one task with `n` runs of which `c` passed: the chance
 * that at least one of k runs drawn without replacement passes,
 * 1 - C(n-c, k) / C(n, k). k > n is clamped to n.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (n <= 0) return 0;
  const kk = Math.min(Math.max(1, k), n);
  if (n - c < kk) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - kk / i;
  return 1 - allFail;
}

export function mean(values: number[]): number | null {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

/** A run passes when it completed with a reward at or above the threshold. */
export function passes(run: { status: string; reward: number | null }, threshold: number): boolean {
  return run.status === 'completed' && run.reward !== null && run.reward >= threshold;
}

/** What every summary of runs counts (a job's, a model's): statuses, errors by phase and the mean reward. */
export interface RunCounts {
  completed: number;
  errored: number;
  cancelled: number;
  /** Errored or cancelled runs count as 0. */
  meanReward: number | null;
  errorsByPhase: Record<ErrorPhase, number>;
}

/** A summary's counts and its pass rates: the means over tasks of each task's pass@1 and pass@k. */
export interface RunTotals extends RunCounts {
  passAt1: number | null;
  passAtK: number | null;
}

export function countRuns(
  runs: readonly { status: string; reward: number | null; error?: { phase: ErrorPhase } | null | undefined }[],
  setupErrors = 0,
): RunCounts {
  const errorsByPhase: Record<ErrorPhase, number> = { setup: setupErrors, actor: 0, verifier: 0 };
  for (const r of runs) if (r.status === 'error' && r.error) errorsByPhase[r.error.phase]++;
  return {
    completed: runs.filter((r) => r.status === 'completed').length,
    errored: runs.filter((r) => r.status === 'error').length,
    cancelled: runs.filter((r) => r.status === 'cancelled').length,
    meanReward: mean(runs.map((r) => r.reward ?? 0)),
    errorsByPhase,
  };
}
