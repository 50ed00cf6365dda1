/** Statistics of a job: mean reward and pass@k over groups of runs. */

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
