/**
 * Builds the trace shown by the explorer from live rollout events, so the
 * page updates as a rollout runs without the host re-sending the whole trace
 * (a trace can hold 100,000 log lines). Pure data: no DOM, no vscode, no I/O.
 *
 * A live trace is a {@link Trace} whose status may still be `running`; once
 * `rollout.ended` arrives it is a complete trace in the file format.
 */
import type { RolloutEvent } from '../engine/events';
import { TRACE_SCHEMA_VERSION, type Trace, type TracePhase, type PhaseName, type SubstrateInfo } from '../engine/trace/schema';

export type LiveStatus = Trace['status'] | 'running';
export type LiveTrace = Omit<Trace, 'status'> & { status: LiveStatus };

/** An empty running trace for a rollout known only by its reference. */
export function emptyLiveTrace(rolloutId: string, at: string, taskRef: string, jobId?: string): LiveTrace {
  return {
    schemaVersion: TRACE_SCHEMA_VERSION,
    rolloutId,
    ...(jobId === undefined ? {} : { jobId }),
    startedAt: at,
    task: { ref: taskRef, kind: 'hud', env: '', id: '', args: {}, slug: '', sourceHash: '' },
    verifier: null,
    agent: { kind: 'unknown' },
    provider: { kind: 'local', verifierSubstrate: 'none' },
    phases: [],
    agentSteps: [],
    result: null,
    status: 'running',
    error: null,
    warnings: [],
    events: [],
  };
}

/**
 * Applies one event in place and returns the trace (a new one when `trace` is
 * null and the event can start one). Events of another rollout are ignored;
 * events that cannot be placed (e.g. a log before its phase started) start the
 * phase they name, so nothing a rollout printed is lost.
 */
export function applyRolloutEvent(trace: LiveTrace | null, event: RolloutEvent): LiveTrace | null {
  if (trace === null) {
    if (event.type === 'rollout.queued') return emptyLiveTrace(event.rolloutId, event.at, event.taskRef, event.jobId);
    if (event.type !== 'rollout.started') return null;
    trace = emptyLiveTrace(event.rolloutId, event.at, event.task.ref);
  }
  if (event.rolloutId !== trace.rolloutId) return trace;
  switch (event.type) {
    case 'rollout.queued':
      break;
    case 'rollout.started':
      trace.task = event.task;
      trace.verifier = event.verifier;
      trace.startedAt = event.at;
      trace.status = 'running';
      note(trace, event.at, 'rollout.started');
      break;
    case 'phase.started': {
      const phase = phaseOf(trace, event.phase, event.at);
      phase.substrate = event.substrate;
      phase.reused = event.reused;
      phase.startedAt = event.at;
      phase.status = 'running';
      if (event.substrate) trace.provider.kind = providerKind(event.substrate);
      if (event.phase === 'verifier') trace.provider.verifierSubstrate = verifierSubstrate(event.reused, event.substrate);
      note(trace, event.at, 'phase.started', event.phase);
      break;
    }
    case 'step': {
      const phase = phaseOf(trace, event.phase, event.at);
      const open = findLast(phase.steps, (s) => s.step === event.step && s.status === 'running');
      if (event.status === 'started') {
        phase.steps.push({ step: event.step, startedAt: event.at, status: 'running', ...(event.detail ? { detail: event.detail } : {}) });
      } else if (open) {
        open.status = event.status;
        open.endedAt = event.at;
        if (event.detail) open.detail = event.detail;
      } else {
        phase.steps.push({ step: event.step, startedAt: event.at, endedAt: event.at, status: event.status, ...(event.detail ? { detail: event.detail } : {}) });
      }
      note(trace, event.at, `step.${event.status}`, event.phase, event.step, event.detail);
      break;
    }
    case 'log':
      phaseOf(trace, event.phase, event.at).logs.push({ t: msBetween(trace.startedAt, event.at), stream: event.stream, text: event.text });
      break;
    case 'prompt':
      trace.prompt = event.prompt;
      break;
    case 'agent.step':
      trace.agentSteps.push({
        index: event.index,
        at: event.at,
        ...(event.text === undefined ? {} : { text: event.text }),
        toolCalls: event.toolCalls,
        ...(event.usage ? { usage: event.usage } : {}),
      });
      break;
    case 'answer':
      trace.answer = event.answer;
      break;
    case 'grade': {
      const phase = phaseOf(trace, event.phase, event.at);
      phase.grade = event.result;
      phase.rawGrade = event.raw;
      if (event.phase === 'actor') trace.actorResult = event.raw;
      if (event.authoritative) trace.result = event.result;
      note(trace, event.at, 'grade', event.phase);
      break;
    }
    case 'phase.ended': {
      const phase = phaseOf(trace, event.phase, event.at);
      phase.status = event.status;
      phase.endedAt = event.at;
      if (event.error !== undefined) phase.error = event.error;
      note(trace, event.at, 'phase.ended', event.phase, undefined, event.error);
      break;
    }
    case 'warning':
      trace.warnings.push(event.message);
      note(trace, event.at, 'warning', event.phase, undefined, event.message);
      break;
    case 'rollout.ended':
      trace.status = event.status;
      trace.result = event.result;
      trace.error = event.error;
      trace.endedAt = event.at;
      trace.durationMs = msBetween(trace.startedAt, event.at);
      note(trace, event.at, 'rollout.ended', undefined, undefined, event.status);
      break;
  }
  return trace;
}

function phaseOf(trace: LiveTrace, name: PhaseName, at: string): TracePhase {
  let phase = trace.phases.find((p) => p.name === name);
  if (!phase) {
    phase = { name, substrate: null, reused: false, status: 'running', startedAt: at, steps: [], logs: [] };
    trace.phases.push(phase);
  }
  return phase;
}

function note(trace: LiveTrace, at: string, type: string, phase?: PhaseName, step?: Trace['events'][number]['step'], message?: string): void {
  trace.events.push({
    at,
    type,
    ...(phase ? { phase } : {}),
    ...(step ? { step } : {}),
    ...(message ? { message } : {}),
  });
}


function providerKind(s: SubstrateInfo): Trace['provider']['kind'] {
  return s.provider === 'compose' ? 'docker' : s.provider;
}

function verifierSubstrate(reused: boolean, s: SubstrateInfo | null): Trace['provider']['verifierSubstrate'] {
  if (s?.isolation === 'borrowed') return 'borrowed';
  return reused ? 'reused' : 'fresh';
}

function msBetween(from: string, to: string): number {
  const d = Date.parse(to) - Date.parse(from);
  return Number.isFinite(d) && d > 0 ? d : 0;
}

function findLast<T>(items: T[], pred: (item: T) => boolean): T | undefined {
  for (let i = items.length - 1; i >= 0; i--) if (pred(items[i] as T)) return items[i];
  return undefined;
}
