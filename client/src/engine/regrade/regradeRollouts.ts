/**
 * The public regrade entry: stored traces in, each graded again with the
 * source on disk now, the per-rollout deltas (subscore by subscore) and a
 * summary out. The CLI and the editor both call this; keep its signature
 * stable (docs/grader-workbench.md).
 */
import { randomUUID } from 'node:crypto';
import type { DiscoveredTask } from '../discover';
import { errorMessage } from '../errors';
import { loadTasks } from '../job';
import type { SelectedProvider } from '../providers/select';
import type { RunContext } from '../runRequest';
import { selectRuntime } from '../runTask';
import type { Trace } from '../../../../common/trace/schema';
import { BatchProvider } from './batchProvider';
import { summarise, type RegradeSummary } from './delta';
import { regradeTrace, type RegradeOptions, type RegradeResult } from './regrade';

export interface RegradeRolloutsOptions extends RegradeOptions {
  /** Called once per stored rollout as soon as its regrade ends, with its index in `traces`. */
  onResult?: (result: RegradeResult, index: number) => void;
  /**
   * Rollouts regraded at once (default 1); each still gets substrates of its
   * own, the next one's started while one grades (./batchProvider.ts).
   */
  maxConcurrent?: number;
}

export interface RegradeReport {
  /** One per stored rollout, in the order of `traces`; fewer when the run was cancelled. */
  results: RegradeResult[];
  summary: RegradeSummary;
  /** The signal in `context` stopped the regrade before every rollout was graded. */
  cancelled: boolean;
}

/**
 * Regrades `traces` on one runtime, picked once for all of them (unless
 * `context.selected` already names one), up to `maxConcurrent` at a time. A
 * task with several stored rollouts is discovered once for all of them, as
 * an eval job does. A rollout that cannot be regraded gets a result with
 * `error` and no delta; it never throws for one rollout's sake.
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
  const tasks = await discoverShared(traces, opts, context.selected, context.signal);
  const batch = batchOf(traces, context);
  const slots: (RegradeResult | undefined)[] = new Array<RegradeResult | undefined>(traces.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < traces.length && !context.signal?.aborted) {
      const index = next++;
      const trace = traces[index]!;
      const task = tasks.get(trace.task.ref);
      const rolloutId = batch?.ids[index];
      const result = await regradeTrace(trace, {
        ...opts,
        context: {
          ...context,
          ...(task ? { task } : {}),
          ...(batch && rolloutId ? { selected: batch.selected, rolloutId } : {}),
        },
      });
      if (rolloutId) batch?.provider.finished(rolloutId);
      slots[index] = result;
      opts.onResult?.(result, index);
    }
  };
  const workers = Math.max(1, Math.min(opts.maxConcurrent ?? 1, traces.length));
  try {
    await Promise.all(Array.from({ length: workers }, worker));
  } finally {
    // Nothing made ahead or being removed outlives the batch.
    await batch?.provider.drain();
  }
  const results = slots.filter((r): r is RegradeResult => r !== undefined);
  return {
    results,
    summary: summarise(results.map((r) => r.delta)),
    cancelled: results.length < traces.length,
  };
}

/**
 * The batch provider (./batchProvider.ts) over the runtime, and an id for
 * each stored rollout, so that substrates can be made for the next rollout
 * of the same task ahead of it; none for a single rollout, a Harbor-only
 * batch or a borrowed tcp:// server (nothing to start there).
 */
function batchOf(
  traces: readonly Trace[],
  context: RunContext,
): { provider: BatchProvider; selected: SelectedProvider; ids: string[] } | undefined {
  const selected = context.selected;
  if (!selected || selected.provider.kind === 'url' || traces.length < 2) return undefined;
  const ids = traces.map(() => randomUUID());
  const nextOf = new Map<string, string>();
  traces.forEach((t, i) => {
    if (t.task.kind !== 'hud') return;
    const j = traces.findIndex((u, k) => k > i && u.task.kind === 'hud' && u.task.ref === t.task.ref);
    if (j > 0) nextOf.set(ids[i]!, ids[j]!);
  });
  if (!nextOf.size) return undefined;
  const provider = new BatchProvider(
    selected.provider,
    (id) => nextOf.get(id),
    context.signal,
    (line) => context.notice?.(line),
  );
  return { provider, selected: { ...selected, provider }, ids };
}

/**
 * The current task of every env.py reference that two or more stored
 * rollouts share, discovered once (not on Docker, see below). A single
 * rollout discovers on the substrate it regrades on, which costs no
 * substrate of its own; a
 * reference that fails to load here is left to each rollout, whose result
 * then says why.
 */
async function discoverShared(
  traces: readonly Trace[],
  opts: RegradeRolloutsOptions,
  selected: SelectedProvider | undefined,
  signal: AbortSignal | undefined,
): Promise<Map<string, DiscoveredTask>> {
  const found = new Map<string, DiscoveredTask>();
  // Docker discovers in a fork of each container's pre-started server, which costs less than a container of its own.
  if (!selected || selected.provider.kind === 'docker') return found;
  const counts = new Map<string, number>();
  for (const t of traces) if (t.task.kind === 'hud') counts.set(t.task.ref, (counts.get(t.task.ref) ?? 0) + 1);
  for (const [ref, n] of counts) {
    if (n < 2 || signal?.aborted) continue;
    try {
      const [task] = await loadTasks(ref, opts.cwd, selected.provider, signal);
      if (task) found.set(ref, task);
    } catch (err) {
      opts.context?.notice?.(`${ref}: discovered per rollout (${errorMessage(err)})`);
    }
  }
  return found;
}
