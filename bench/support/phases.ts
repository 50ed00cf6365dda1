/**
 * Where a benchmark's rollouts spent their time, from the traces they wrote:
 * the engine times its own stretches of work (the trace's `spans`: container
 * create and start, copy-in, discovery, server start, channel, the agent,
 * tasks.start / tasks.grade, server stop, container removal); the trace write
 * is the file's modification time minus the trace's end, at least 0: the
 * kernel stamps files from its coarse clock (one scheduler tick, up to 4 ms
 * behind the time the trace's end was read from), so a quick write otherwise
 * reads as a few milliseconds before the end. Spans of one rollout
 * may overlap (the verifier's container is made while the actor works), so
 * the per-span medians do not add up to the rollout's duration.
 */
import { readFileSync, statSync } from 'node:fs';
import type { Trace } from '../../common/trace/schema';

export interface PhaseBreakdown {
  rollouts: number;
  /** Median of each trace's durationMs (queued to ended, before the write). */
  rolloutMedianMs: number;
  /** Per `phase: span`, the median over the rollouts that had it, and in how many it ran. */
  spans: Record<string, { medianMs: number; p90Ms: number; count: number }>;
  traceWriteMedianMs: number;
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return 0;
  const i = (s.length - 1) * q;
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  return s[lo]! + (s[hi]! - s[lo]!) * (i - lo);
}

const round = (x: number): number => Math.round(x * 10) / 10;

/** The breakdown of the traces at `paths` (each a written `*.hudtrace.json`). */
export function phaseBreakdown(paths: string[]): PhaseBreakdown {
  const byName = new Map<string, number[]>();
  const durations: number[] = [];
  const writes: number[] = [];
  for (const path of paths) {
    const trace = JSON.parse(readFileSync(path, 'utf8')) as Trace;
    if (trace.durationMs !== undefined) durations.push(trace.durationMs);
    if (trace.endedAt) writes.push(Math.max(0, statSync(path).mtimeMs - Date.parse(trace.endedAt)));
    // One rollout's repeated span (e.g. tasks.start of actor and verifier on one channel) counts summed.
    const mine = new Map<string, number>();
    for (const s of trace.spans ?? []) {
      const key = `${s.phase}: ${s.name}`;
      mine.set(key, (mine.get(key) ?? 0) + s.ms);
    }
    for (const [key, ms] of mine) byName.set(key, [...(byName.get(key) ?? []), ms]);
  }
  const spans: PhaseBreakdown['spans'] = {};
  for (const [key, xs] of byName)
    spans[key] = { medianMs: round(quantile(xs, 0.5)), p90Ms: round(quantile(xs, 0.9)), count: xs.length };
  return {
    rollouts: paths.length,
    rolloutMedianMs: round(quantile(durations, 0.5)),
    spans,
    traceWriteMedianMs: round(quantile(writes, 0.5)),
  };
}
