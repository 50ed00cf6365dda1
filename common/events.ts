/**
 * Live rollout events. The engine emits them as things happen; the CLI
 * renders them, the extension's views and the trace explorer subscribe to
 * them, and the trace is built from them. Every event carries its rollout id
 * and an ISO timestamp.
 */
import type { Fix } from './fix';
import type {
  GradeResult,
  LogStream,
  PhaseName,
  RolloutStatus,
  StepName,
  SubstrateInfo,
  TaskIdentity,
  ErrorPhase,
  TokenUsage,
  Trace,
  JudgeCall,
  TraceSpan,
} from './trace/schema';

interface Base {
  rolloutId: string;
  at: string;
}

export type RolloutEvent =
  | (Base & {
      type: 'rollout.queued';
      taskRef: string;
      jobId?: string;
      /** Who answers and where the rollout runs, known before anything starts (the trace records both). */
      agent?: Trace['agent'];
      provider?: { kind: Trace['provider']['kind']; dockerHost?: string };
    })
  | (Base & { type: 'rollout.started'; task: TaskIdentity; verifier: TaskIdentity | null })
  | (Base & { type: 'phase.started'; phase: PhaseName; substrate: SubstrateInfo | null; reused: boolean })
  | (Base & {
      type: 'step';
      phase: PhaseName;
      step: StepName;
      status: 'started' | 'completed' | 'error' | 'cancelled';
      detail?: string;
    })
  | (Base & { type: 'log'; phase: PhaseName; stream: LogStream; text: string })
  | (Base & { type: 'prompt'; prompt: unknown })
  | (Base & {
      type: 'agent.step';
      index: number;
      text?: string;
      toolCalls: { name: string; input?: unknown; output?: unknown; isError?: boolean }[];
      usage?: TokenUsage;
    })
  | (Base & {
      type: 'answer';
      answer: unknown;
      /** A regrade's stored actor result frame, judged again by the verifier without an actor phase. */
      actorResult?: unknown;
    })
  | (Base & { type: 'judge.call'; call: JudgeCall })
  | (Base & { type: 'grade'; phase: PhaseName; result: GradeResult; raw: unknown; authoritative: boolean })
  | (Base & { type: 'phase.ended'; phase: PhaseName; status: RolloutStatus; error?: string })
  | (Base & { type: 'warning'; phase?: PhaseName; message: string })
  | (Base & {
      type: 'rollout.ended';
      status: RolloutStatus;
      reward: number | null;
      result: GradeResult | null;
      tracePath: string | undefined;
      error: { phase: ErrorPhase; message: string; code?: string; fix?: Fix } | null;
      /** Harbor trial extras, recorded in the trace. */
      harbor?: Trace['harbor'];
      /** Per phase, the side file with its whole log when the trace keeps only its head and tail. */
      logFiles?: Partial<Record<PhaseName, string>>;
      /** The engine's timing of its own work (the trace's `spans`). */
      spans?: TraceSpan[];
    });

/**
 * A batch of rollouts began (CLI eval, an editor batch): its id, the label a
 * view shows, and how many rollouts it will run. Its rollouts carry the id.
 */
export interface JobStartedEvent {
  type: 'job.started';
  jobId: string;
  label: string;
  total: number;
  at: string;
}

export type JobEvent = JobStartedEvent;
export type EngineEvent = RolloutEvent | JobEvent;
export type JobListener = (event: JobEvent) => void;

export type RolloutEventType = RolloutEvent['type'];
export type RolloutListener = (event: RolloutEvent) => void;

/**
 * Distributes events to listeners; a throwing listener never breaks a
 * rollout. Rollout and job events have their own listeners, so a consumer of
 * rollouts never has to skip job events.
 */
export class EventHub {
  private readonly listeners = new Set<RolloutListener>();
  private readonly jobListeners = new Set<JobListener>();

  on(listener: RolloutListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onJob(listener: JobListener): () => void {
    this.jobListeners.add(listener);
    return () => this.jobListeners.delete(listener);
  }

  emit(event: EngineEvent): void {
    if (event.type === 'job.started') deliver(this.jobListeners, event);
    else deliver(this.listeners, event);
  }
}

function deliver<E>(listeners: Set<(event: E) => void>, event: E): void {
  for (const l of listeners) {
    try {
      l(event);
    } catch {
      // A UI bug must not fail the rollout it is displaying.
    }
  }
}

export const now = (): string => new Date().toISOString();
