/**
 * The one description of a finished rollout, whoever ran it (CLI, eval job,
 * editor) and whichever world it came from (env.py or Harbor). Front ends
 * build it from the engine's return value, a `rollout.ended` event or a
 * trace file, and all three give the same object.
 */
import type { Fix } from '../../../common/fix';
import type { ErrorPhase, GradeResult, RolloutStatus, Trace } from '../../../common/trace/schema';

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
  /** Why no trace was written (a read-only or full trace folder); the result above still holds. */
  traceError?: string;
  /** Set when nobody really answered: a reward earned this way must say so wherever it is shown. */
  noAnswer?: NoAnswer;
}

/** `nop`: the agent answered nothing; `empty`: the answer sent was the empty string. */
export type NoAnswer = 'nop' | 'empty';

export function noAnswerOf(t: Pick<Trace, 'agent' | 'answer'>): NoAnswer | undefined {
  if (t.agent.kind === 'nop') return 'nop';
  return t.answer === '' ? 'empty' : undefined;
}

/** The outcome with its `noAnswer` mark, from the trace it wrote. */
export function markNoAnswer<O extends RolloutOutcome>(o: O, t: Pick<Trace, 'agent' | 'answer'>): O {
  const gap = noAnswerOf(t);
  return gap ? { ...o, noAnswer: gap } : o;
}

/** What the engine's run entries resolve with: the outcome and the trace it wrote (or would have). */
export type FinishedRollout = RolloutOutcome & { trace: Trace };

/** How a run ended, as either engine (env.py's or Harbor's) tells its recorder. */
export interface RunEnding {
  status: RolloutStatus;
  result: GradeResult | null;
  error: RolloutError | null;
}

/** What a recorder's end gives back: the trace, where it went (or why it could not), and the reward it holds. */
export interface RecordedEnd {
  trace: Trace;
  tracePath: string | undefined;
  traceError?: string | undefined;
  reward: number | null;
}

/** The run entry's value, from how the run ended and what its recorder wrote; the reference is the trace's. */
export function finishedRollout(rolloutId: string, ending: RunEnding, recorded: RecordedEnd): FinishedRollout {
  const { error } = ending;
  const { trace, tracePath, traceError } = recorded;
  return {
    rolloutId,
    ref: trace.task.ref,
    status: ending.status,
    reward: recorded.reward,
    result: ending.result,
    // The public error: a phase, a message and a fix (its internal code stays in the trace).
    error: error ? { phase: error.phase, message: error.message, ...(error.fix ? { fix: error.fix } : {}) } : null,
    tracePath,
    ...(traceError ? { traceError } : {}),
    trace,
  };
}

export function outcomeFromTrace(t: Trace, tracePath?: string): RolloutOutcome {
  return markNoAnswer(
    {
      rolloutId: t.rolloutId,
      ref: t.task.ref,
      status: t.status,
      reward: t.status === 'cancelled' ? null : (t.result?.reward ?? null),
      result: t.result,
      error: t.error ? { phase: t.error.phase, message: t.error.message } : null,
      tracePath,
    },
    t,
  );
}
