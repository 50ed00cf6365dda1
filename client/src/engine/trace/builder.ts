/**
 * The engine's side of a rollout's trace: every event it emits is stamped,
 * folded with the same {@link foldRolloutEvent} every listener uses, and
 * handed to the hub. The file is that fold with `rollout.ended` applied, and
 * it is written before `rollout.ended` goes out, so a listener can open it
 * (docs/trace-format.md).
 */
import { randomUUID } from 'node:crypto';
import { HudStudioError, errorMessage } from '../errors';
import { type EventHub, type RolloutEvent, now } from '../events';
import { finishedTrace, foldRolloutEvent } from './fold';
import type { ErrorPhase, GradeResult, RolloutStatus, RunningTrace, Trace } from './schema';
import { writeTrace } from './store';

/** An event as its emitter writes it: the recorder adds the rollout id and the time. */
export type RolloutEventInput = RolloutEvent extends infer E
  ? E extends RolloutEvent
    ? Omit<E, 'rolloutId' | 'at'>
    : never
  : never;

export interface TraceRecorderInit {
  rolloutId?: string;
  jobId?: string;
  taskRef: string;
  agent: Trace['agent'];
  provider: { kind: Trace['provider']['kind']; dockerHost?: string };
}

export interface RolloutEnding {
  status: RolloutStatus;
  result: GradeResult | null;
  error: { phase: ErrorPhase; message: string; code?: string } | null;
  harbor?: Trace['harbor'];
}

export interface RecordedRollout {
  trace: Trace;
  /** Undefined when no trace was asked for or it could not be written (a warning says why). */
  tracePath: string | undefined;
  reward: number | null;
}

export class TraceRecorder {
  readonly rolloutId: string;
  private trace: RunningTrace;

  /** Emits `rollout.queued` at once: the trace starts when the rollout is asked for. */
  constructor(
    init: TraceRecorderInit,
    private readonly hub: EventHub,
  ) {
    this.rolloutId = init.rolloutId ?? randomUUID();
    const queued = this.stamp({
      type: 'rollout.queued',
      taskRef: init.taskRef,
      ...(init.jobId ? { jobId: init.jobId } : {}),
      agent: init.agent,
      provider: init.provider,
    });
    const trace = foldRolloutEvent(null, queued);
    if (!trace) throw new HudStudioError('trace', 'internal: rollout.queued did not start a trace');
    this.trace = trace;
    this.hub.emit(queued);
  }

  readonly emit = (input: RolloutEventInput): void => {
    this.send(this.stamp(input));
  };

  /** The rollout so far (live object: read, do not change). */
  get current(): RunningTrace {
    return this.trace;
  }

  /**
   * Ends the rollout: writes the trace into `traceDir` (null: no file), runs
   * `beforeEnded` (e.g. a Harbor trial's result.json), then emits
   * `rollout.ended` naming the file.
   */
  end(
    ending: RolloutEnding,
    traceDir: string | null,
    beforeEnded?: (trace: RunningTrace, tracePath: string | undefined) => void,
  ): RecordedRollout {
    const reward = ending.status === 'completed' ? (ending.result?.reward ?? null) : null;
    const ended = (at: string, tracePath: string | undefined): RolloutEvent => ({
      type: 'rollout.ended',
      rolloutId: this.rolloutId,
      at,
      status: ending.status,
      reward,
      result: ending.result,
      tracePath,
      error: ending.error,
      ...(ending.harbor ? { harbor: ending.harbor } : {}),
    });
    let last = ended(now(), undefined);
    let tracePath: string | undefined;
    if (traceDir !== null) {
      // The file is exactly what every listener will hold after `rollout.ended`.
      const file = foldRolloutEvent(structuredClone(this.trace), last);
      try {
        tracePath = writeTrace(traceDir, this.finished(file));
        last = ended(last.at, tracePath);
      } catch (err) {
        this.emit({ type: 'warning', message: errorMessage(err) });
        last = ended(now(), undefined);
      }
    }
    beforeEnded?.(this.trace, tracePath);
    this.send(last);
    return { trace: this.finished(this.trace), tracePath, reward };
  }

  private stamp(input: RolloutEventInput): RolloutEvent {
    return { ...input, rolloutId: this.rolloutId, at: now() };
  }

  private send(event: RolloutEvent): void {
    this.trace = foldRolloutEvent(this.trace, event) ?? this.trace;
    this.hub.emit(event);
  }

  private finished(trace: RunningTrace | null): Trace {
    const t = trace && finishedTrace(trace);
    if (!t) throw new HudStudioError('trace', 'internal: the rollout has not ended');
    return t;
  }
}
