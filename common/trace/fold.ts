/**
 * The one fold of a rollout's event stream into its trace. The engine's trace
 * writer, the trace explorer (host and page), the Runs view and the CLI all
 * fold events with {@link foldRolloutEvent}, so what a user watched and what
 * the file says cannot disagree (docs/trace-format.md). Pure data: no DOM,
 * no vscode, no I/O; it runs in the webview too.
 */
import type { RolloutEvent } from '../events';
import {
  TRACE_SCHEMA_VERSION,
  type PhaseName,
  type RunningTrace,
  type TaskIdentity,
  type Trace,
  type TraceEvent,
  type TraceLog,
  type TracePhase,
} from './schema';

export interface FoldOptions {
  /**
   * Where log lines go instead of the phase's `logs`: the engine keeps only a
   * head and a tail (boundedLog.ts), the CLI and the Runs view none.
   */
  onLog?: (phase: PhaseName, entry: TraceLog) => void;
}

type QueuedEvent = Extract<RolloutEvent, { type: 'rollout.queued' }>;

/**
 * Applies one event in place and returns the trace: a new one when `trace` is
 * null and the event starts a rollout (`rollout.queued`, or `rollout.started`
 * when the queueing was missed). Events of another rollout and events before
 * any start are ignored (the result is `trace` unchanged). An event that
 * names a phase not started yet starts it, so nothing a rollout printed is
 * lost.
 */
export function foldRolloutEvent(
  trace: RunningTrace | null,
  event: RolloutEvent,
  options: FoldOptions = {},
): RunningTrace | null {
  if (trace === null) {
    if (event.type === 'rollout.queued') trace = startTrace(event);
    else if (event.type === 'rollout.started')
      trace = startTrace({ ...event, type: 'rollout.queued', taskRef: event.task.ref });
    else return null;
  }
  if (event.rolloutId !== trace.rolloutId) return trace;
  apply(trace, event, options);
  if (event.type !== 'log') trace.events.push(summarise(event));
  return trace;
}

/** Folds a whole stream (events of other rollouts than the first are ignored). */
export function foldRolloutEvents(events: Iterable<RolloutEvent>, options: FoldOptions = {}): RunningTrace | null {
  let trace: RunningTrace | null = null;
  for (const e of events) trace = foldRolloutEvent(trace, e, options);
  return trace;
}

/** The trace in the file format once the rollout has ended; null while it runs. */
export function finishedTrace(trace: RunningTrace): Trace | null {
  return trace.status === 'running' ? null : { ...trace, status: trace.status };
}

function startTrace(e: QueuedEvent): RunningTrace {
  // Until discovery names the task, the trace knows only what the user typed.
  const at = e.taskRef.lastIndexOf('::');
  const task: TaskIdentity = {
    ref: e.taskRef,
    kind: 'hud',
    env: '',
    id: '',
    args: {},
    slug: at >= 0 ? e.taskRef.slice(at + 2) : 'task',
    sourceHash: '',
  };
  return {
    schemaVersion: TRACE_SCHEMA_VERSION,
    rolloutId: e.rolloutId,
    ...(e.jobId === undefined ? {} : { jobId: e.jobId }),
    startedAt: e.at,
    task,
    verifier: null,
    agent: e.agent ?? { kind: 'unknown' },
    provider: {
      kind: e.provider?.kind ?? 'local',
      verifierSubstrate: 'none',
      ...(e.provider?.dockerHost ? { dockerHost: e.provider.dockerHost } : {}),
    },
    phases: [],
    agentSteps: [],
    judgeCalls: [],
    result: null,
    status: 'running',
    error: null,
    warnings: [],
    events: [],
  };
}

function apply(trace: RunningTrace, e: RolloutEvent, options: FoldOptions): void {
  switch (e.type) {
    case 'rollout.queued':
      return;
    case 'rollout.started':
      trace.task = e.task;
      trace.verifier = e.verifier;
      trace.provider.verifierSubstrate = verifierSubstrate(trace);
      return;
    case 'phase.started': {
      const p = phaseOf(trace, e.phase, e.at);
      p.substrate = e.substrate;
      p.reused = e.reused;
      p.startedAt = e.at;
      p.status = 'running';
      trace.provider.verifierSubstrate = verifierSubstrate(trace);
      return;
    }
    case 'step': {
      const p = phaseOf(trace, e.phase, e.at);
      const open = findLast(p.steps, (s) => s.step === e.step && s.status === 'running');
      const detail = e.detail ? { detail: e.detail } : {};
      if (e.status === 'started') p.steps.push({ step: e.step, startedAt: e.at, status: 'running', ...detail });
      else if (!open) p.steps.push({ step: e.step, startedAt: e.at, endedAt: e.at, status: e.status, ...detail });
      else {
        open.status = e.status;
        open.endedAt = e.at;
        if (e.detail) open.detail = e.detail;
      }
      return;
    }
    case 'log': {
      const entry = { t: msBetween(trace.startedAt, e.at), stream: e.stream, text: e.text };
      const p = phaseOf(trace, e.phase, e.at);
      if (options.onLog) options.onLog(e.phase, entry);
      else p.logs.push(entry);
      return;
    }
    case 'prompt':
      trace.prompt = e.prompt;
      return;
    case 'agent.step':
      trace.agentSteps.push({
        index: e.index,
        at: e.at,
        ...(e.text === undefined ? {} : { text: e.text }),
        toolCalls: e.toolCalls,
        ...(e.usage ? { usage: e.usage } : {}),
      });
      return;
    case 'answer':
      trace.answer = e.answer;
      if (e.actorResult !== undefined) trace.actorResult = e.actorResult;
      return;
    case 'judge.call':
      trace.judgeCalls.push(e.call);
      return;
    case 'grade': {
      const p = phaseOf(trace, e.phase, e.at);
      p.grade = e.result;
      p.rawGrade = e.raw;
      if (e.phase === 'actor') trace.actorResult = e.raw;
      if (e.authoritative) trace.result = e.result;
      return;
    }
    case 'phase.ended': {
      const p = phaseOf(trace, e.phase, e.at);
      p.status = e.status;
      p.endedAt = e.at;
      if (e.error) p.error = e.error;
      closeSteps(p, e.status, e.at);
      return;
    }
    case 'warning':
      // The same warning from both phases (or a retried step) is one problem.
      if (!trace.warnings.includes(e.message)) trace.warnings.push(e.message);
      return;
    case 'rollout.ended':
      trace.status = e.status;
      trace.result = e.result;
      // What the file format records of an error (a fix is for the front ends, not the record).
      trace.error = e.error && {
        phase: e.error.phase,
        message: e.error.message,
        ...(e.error.code === undefined ? {} : { code: e.error.code }),
      };
      trace.endedAt = e.at;
      trace.durationMs = msBetween(trace.startedAt, e.at);
      if (e.harbor) trace.harbor = e.harbor;
      for (const p of trace.phases) {
        const file = e.logFiles?.[p.name];
        if (file !== undefined) p.logFile = file;
      }
      for (const p of trace.phases) {
        if (p.status === 'running') {
          p.status = e.status;
          p.endedAt = e.at;
        }
        closeSteps(p, p.status, e.at);
      }
      return;
  }
}

function closeSteps(p: TracePhase, status: TracePhase['status'], at: string): void {
  for (const s of p.steps) {
    if (s.status !== 'running') continue;
    s.status = status;
    s.endedAt = at;
  }
}

function phaseOf(trace: RunningTrace, name: PhaseName, at: string): TracePhase {
  let p = trace.phases.find((x) => x.name === name);
  if (!p) {
    p = { name, substrate: null, reused: false, status: 'running', startedAt: at, steps: [], logs: [] };
    trace.phases.push(p);
  }
  return p;
}

function verifierSubstrate(trace: RunningTrace): Trace['provider']['verifierSubstrate'] {
  if (!trace.verifier) return 'none';
  const phase = trace.phases.find((p) => p.name === 'verifier');
  if (trace.provider.kind === 'url' || phase?.substrate?.isolation === 'borrowed') return 'borrowed';
  return phase?.reused ? 'reused' : 'fresh';
}

/** The one-line record of an event kept in `trace.events` (logs are kept per phase instead). */
function summarise(e: RolloutEvent): TraceEvent {
  const base: TraceEvent = { at: e.at, type: e.type };
  switch (e.type) {
    case 'phase.started':
      if (!e.substrate) return { ...base, phase: e.phase };
      return {
        ...base,
        phase: e.phase,
        message: `${e.substrate.provider} ${e.substrate.id}${e.reused ? ' (reused)' : ''}`,
      };
    case 'step':
      return { ...base, phase: e.phase, step: e.step, message: e.detail ? `${e.status}: ${e.detail}` : e.status };
    case 'grade':
      return {
        ...base,
        phase: e.phase,
        message: `reward ${e.result.reward}${e.authoritative ? '' : ' (provisional)'}`,
      };
    case 'phase.ended':
      return { ...base, phase: e.phase, message: e.error ? `${e.status}: ${e.error}` : e.status };
    case 'warning':
      return { ...base, ...(e.phase ? { phase: e.phase } : {}), message: e.message };
    case 'rollout.ended':
      return { ...base, message: e.status };
    case 'rollout.queued':
      return { ...base, message: e.taskRef };
    default:
      return base;
  }
}

function msBetween(from: string, to: string): number {
  const d = Date.parse(to) - Date.parse(from);
  return Number.isFinite(d) && d > 0 ? d : 0;
}

function findLast<T>(items: T[], pred: (item: T) => boolean): T | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item !== undefined && pred(item)) return item;
  }
  return undefined;
}
