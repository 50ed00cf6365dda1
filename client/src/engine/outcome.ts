/**
 * The one description of a finished rollout, whoever ran it (CLI, eval job,
 * editor) and whichever world it came from (env.py or Harbor). Front ends
 * build it from the engine's return value, a `rollout.ended` event or a
 * trace file, and all three give the same object.
 */
import type { Fix } from './fix';
import type { ErrorPhase, GradeResult, RolloutStatus, Trace } from './trace/schema';

export interface RolloutError {
  phase: ErrorPhase;
  message: string;
  /** A change the front end words itself; see `docs/engine.md`. */
  fix?: Fix;
}

export interface RolloutOutcome {
  rolloutId: string;
  /** The task reference as the trace records it. */
  ref: string;
  status: RolloutStatus;
  /** Null unless completed. */
  reward: number | null;
  result: GradeResult | null;
  error: RolloutError | null;
  tracePath: string | undefined;
}

/** What the engine's run entries resolve with: the outcome and the trace it wrote (or would have). */
export type FinishedRollout = RolloutOutcome & { trace: Trace };

export function outcomeFromTrace(t: Trace, tracePath?: string): RolloutOutcome {
  return {
    rolloutId: t.rolloutId,
    ref: t.task.ref,
    status: t.status,
    reward: t.status === 'completed' ? (t.result?.reward ?? null) : null,
    result: t.result,
    error: t.error ? { phase: t.error.phase, message: t.error.message } : null,
    tracePath,
  };
}
