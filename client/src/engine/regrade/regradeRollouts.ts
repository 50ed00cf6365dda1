/**
 * The public regrade entry: stored traces in, each graded again with the
 * source on disk now, the per-rollout deltas (subscore by subscore) and a
 * summary out. The CLI and the editor both call this; keep its signature
 * stable (docs/grader-workbench.md).
 */
import { selectRuntime } from '../runTask';
import type { Trace } from '../../../../common/trace/schema';
import { summarise, type RegradeSummary } from './delta';
import { regradeTrace, type RegradeOptions, type RegradeResult } from './regrade';

export interface RegradeRolloutsOptions extends RegradeOptions {
  /** Called once per stored rollout as soon as its regrade ends, with its index in `traces`. */
  onResult?: (result: RegradeResult, index: number) => void;
}

export interface RegradeReport {
  /** One per stored rollout, in the order of `traces`; fewer when the run was cancelled. */
  results: RegradeResult[];
  summary: RegradeSummary;
  /** The signal in `context` stopped the regrade before every rollout was graded. */
  cancelled: boolean;
}

/**
 * Regrades `traces` one after another on one runtime, picked once for all of
 * them (unless `context.selected` already names one). A rollout that cannot
 * be regraded gets a result with `error` and no delta; it never throws for
 * one rollout's sake.
 */
export async function regradeRollouts(traces: readonly Trace[], opts: RegradeRolloutsOptions): Promise<RegradeReport> {
  const context = { ...opts.context };
  if (!context.selected && traces.length) {
    context.selected = await selectRuntime({
      runtime: opts.runtime,
      consent: { serviceAccess: false, sharedSecrets: false },
      ...(opts.dockerHost ? { dockerHost: opts.dockerHost } : {}),
    });
    if (context.selected.notice) context.notice?.(context.selected.notice);
  }
  const results: RegradeResult[] = [];
  for (const [index, trace] of traces.entries()) {
    if (context.signal?.aborted) break;
    const result = await regradeTrace(trace, { ...opts, context });
    results.push(result);
    opts.onResult?.(result, index);
  }
  return {
    results,
    summary: summarise(results.map((r) => r.delta)),
    cancelled: results.length < traces.length,
  };
}
