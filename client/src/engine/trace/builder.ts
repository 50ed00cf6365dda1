/**
 * The engine's side of a rollout's trace: every event it emits is stamped,
 * folded with the same {@link foldRolloutEvent} every listener uses, and
 * handed to the hub. The file is that fold with `rollout.ended` applied, and
 * it is written before `rollout.ended` goes out, so a listener can open it
 * (docs/trace-format.md). Log lines are the one exception to holding
 * everything: the engine keeps a head and a tail per phase, and the whole log
 * goes to a side file once it is cut (boundedLog.ts, sideLogs.ts).
 */
import { randomUUID } from 'node:crypto';
import { HudStudioError, errorMessage } from '../errors';
import { type EventHub, type RolloutEvent, now } from '../../../../common/events';
import type { Fix } from '../../../../common/fix';
import { BoundedLog } from './boundedLog';
import { finishedTrace, foldRolloutEvent } from '../../../../common/trace/fold';
import type {
  ErrorPhase,
  GradeResult,
  PhaseName,
  RolloutStatus,
  RunningTrace,
  Trace,
} from '../../../../common/trace/schema';
import { SideLogs } from './sideLogs';
import { traceFileName, writeTrace } from './store';

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
  /** Where the trace (and any side file of a cut log) is written; undefined: no file. */
  traceDir?: string;
}

export interface RolloutEnding {
  status: RolloutStatus;
  result: GradeResult | null;
  error: { phase: ErrorPhase; message: string; code?: string; fix?: Fix } | null;
  harbor?: Trace['harbor'];
}

export interface RecordedRollout {
  trace: Trace;
  /** Undefined when no trace was asked for or it could not be written (a warning says why). */
  tracePath: string | undefined;
  /** Why the trace could not be written, when it could not. */
  traceError: string | undefined;
  reward: number | null;
}

export class TraceRecorder {
  readonly rolloutId: string;
  private trace: RunningTrace;
  private readonly traceDir: string | undefined;
  private readonly sideLogs: SideLogs | undefined;
  private readonly logs = new Map<PhaseName, BoundedLog>();

  /** Emits `rollout.queued` at once: the trace starts when the rollout is asked for. */
  constructor(
    init: TraceRecorderInit,
    private readonly hub: EventHub,
  ) {
    this.rolloutId = init.rolloutId ?? randomUUID();
    this.traceDir = init.traceDir;
    this.sideLogs = init.traceDir === undefined ? undefined : new SideLogs(init.traceDir, this.rolloutId);
    const queued = this.stamp({
      type: 'rollout.queued',
      taskRef: init.taskRef,
      ...(init.jobId ? { jobId: init.jobId } : {}),
      agent: init.agent,
      provider: init.provider,
    });
    const trace = this.fold(null, queued);
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
   * Ends the rollout: writes the trace (unless `write` is false, e.g. the
   * reference itself was wrong), runs `beforeEnded` (e.g. a Harbor trial's
   * result.json), then emits `rollout.ended` naming the file.
   */
  end(
    ending: RolloutEnding,
    write = true,
    beforeEnded?: (trace: RunningTrace, tracePath: string | undefined) => void,
  ): RecordedRollout {
    // An errored run keeps a reward only when it was graded anyway: the verifier graded after the actor's grading
    // failed, as in the SDK (docs/sdk-compatibility.md).
    const reward = ending.status === 'cancelled' ? null : (ending.result?.reward ?? null);
    let logFiles: Partial<Record<PhaseName, string>> | undefined;
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
      ...(logFiles ? { logFiles } : {}),
    });
    let tracePath: string | undefined;
    let traceError: string | undefined;
    let last: RolloutEvent;
    if (write && this.traceDir !== undefined) {
      logFiles = this.commitSideLogs();
      last = ended(now(), undefined);
      // The file is exactly what every listener will hold after `rollout.ended` (logs: head and tail).
      const file = this.withLogs(this.finished(this.fold(structuredClone(this.trace), last)));
      try {
        tracePath = writeTrace(this.traceDir, file);
        last = ended(last.at, tracePath);
      } catch (err) {
        traceError = errorMessage(err);
        this.emit({ type: 'warning', message: traceError });
        last = ended(now(), undefined);
      }
    } else {
      this.sideLogs?.discard();
      last = ended(now(), undefined);
    }
    beforeEnded?.(this.trace, tracePath);
    this.send(last);
    return { trace: this.withLogs(this.finished(this.trace)), tracePath, traceError, reward };
  }

  /** Moves the whole logs of cut phases beside the trace-to-be; a failure is a warning like any other. */
  private commitSideLogs(): Partial<Record<PhaseName, string>> | undefined {
    if (!this.sideLogs) return undefined;
    const files = this.sideLogs.commit(traceFileName(this.trace));
    const why = this.sideLogs.error;
    if (why) this.emit({ type: 'warning', message: why });
    return files.size ? Object.fromEntries(files) : undefined;
  }

  private withLogs(trace: Trace): Trace {
    for (const p of trace.phases) p.logs = this.logs.get(p.name)?.entries() ?? [];
    return trace;
  }

  private fold(trace: RunningTrace | null, event: RolloutEvent): RunningTrace | null {
    return foldRolloutEvent(trace, event, { onLog: (phase, entry) => this.logOf(phase).push(entry) });
  }

  private logOf(phase: PhaseName): BoundedLog {
    let log = this.logs.get(phase);
    if (!log) {
      const side = this.sideLogs;
      log = new BoundedLog(() => side?.open(phase));
      this.logs.set(phase, log);
    }
    return log;
  }

  private stamp(input: RolloutEventInput): RolloutEvent {
    // Not `{ ...input, rolloutId, at }`: V8 allocates what a spread with added properties makes straight in the old
    // generation, and at one event per log line a flood of output fills it with garbage (docs/reliability.md).
    const event = Object.assign({}, input) as RolloutEvent;
    event.rolloutId = this.rolloutId;
    event.at = now();
    return event;
  }

  private send(event: RolloutEvent): void {
    this.trace = this.fold(this.trace, event) ?? this.trace;
    this.hub.emit(event);
  }

  private finished(trace: RunningTrace | null): Trace {
    const t = trace && finishedTrace(trace);
    if (!t) throw new HudStudioError('trace', 'internal: the rollout has not ended');
    return t;
  }
}
