/**
 * Builds a trace from the live events of one rollout, so that what the user
 * watched and what the file says can never disagree. The engine feeds every
 * event it emits through {@link TraceBuilder.handle} and calls
 * {@link TraceBuilder.finish} once.
 */
import type { RolloutEvent } from '../events';
import { BoundedLog } from './boundedLog';
import type { SideLogs } from './sideLogs';
import type { ProviderKind } from '../providers/provider';
import {
  TRACE_SCHEMA_VERSION,
  type AgentStep,
  type ErrorPhase,
  type GradeResult,
  type PhaseName,
  type RolloutStatus,
  type TaskIdentity,
  type Trace,
  type TraceEvent,
  type TracePhase,
} from './schema';

export interface TraceBuilderInit {
  rolloutId: string;
  jobId?: string;
  taskRef: string;
  startedAt: string;
  agent: { kind: string; detail?: string };
  providerKind: ProviderKind;
  dockerHost?: string;
  /** Where a phase's whole log goes once the trace keeps only its head and tail. */
  sideLogs?: SideLogs;
}

export interface TraceEnding {
  status: RolloutStatus;
  result: GradeResult | null;
  error: { phase: ErrorPhase; message: string; code?: string } | null;
  endedAt: string;
}

export class TraceBuilder {
  private task: TaskIdentity;
  private verifier: TaskIdentity | null = null;
  private readonly phases: TracePhase[] = [];
  private readonly agentSteps: AgentStep[] = [];
  private readonly warnings: string[] = [];
  private readonly events: TraceEvent[] = [];
  private readonly logs = new Map<PhaseName, BoundedLog>();
  private prompt: unknown;
  private answer: unknown;
  private actorResult: unknown;
  private readonly t0: number;

  constructor(private readonly init: TraceBuilderInit) {
    this.t0 = Date.parse(init.startedAt);
    // Until discovery names the task, the trace knows only what the user typed.
    const at = init.taskRef.lastIndexOf('::');
    this.task = { ref: init.taskRef, kind: 'hud', env: '', id: '', args: {}, slug: at >= 0 ? init.taskRef.slice(at + 2) : 'task', sourceHash: '' };
  }

  handle(e: RolloutEvent): void {
    switch (e.type) {
      case 'rollout.started':
        this.task = e.task;
        this.verifier = e.verifier;
        break;
      case 'phase.started': {
        const p = this.phase(e.phase, e.at);
        p.substrate = e.substrate;
        p.reused = e.reused;
        break;
      }
      case 'step': {
        const p = this.phase(e.phase, e.at);
        const open = [...p.steps].reverse().find((s) => s.step === e.step && s.status === 'running');
        if (e.status === 'started' || !open) {
          p.steps.push({ step: e.step, startedAt: e.at, status: e.status === 'started' ? 'running' : e.status, ...(e.detail ? { detail: e.detail } : {}) });
          if (e.status !== 'started') p.steps[p.steps.length - 1]!.endedAt = e.at;
        } else {
          open.status = e.status;
          open.endedAt = e.at;
          if (e.detail) open.detail = e.detail;
        }
        break;
      }
      case 'log':
        this.phase(e.phase, e.at);
        this.logOf(e.phase).push({ t: Math.max(0, Date.parse(e.at) - this.t0), stream: e.stream, text: e.text });
        return; // logs are kept per phase, not in the event list
      case 'prompt':
        this.prompt = e.prompt;
        break;
      case 'agent.step':
        this.agentSteps.push({ index: e.index, at: e.at, ...(e.text !== undefined ? { text: e.text } : {}), toolCalls: e.toolCalls });
        break;
      case 'answer':
        this.answer = e.answer;
        break;
      case 'grade': {
        const p = this.phase(e.phase, e.at);
        p.grade = e.result;
        p.rawGrade = e.raw;
        if (e.phase === 'actor') this.actorResult = e.raw;
        break;
      }
      case 'phase.ended': {
        const p = this.phase(e.phase, e.at);
        p.status = e.status;
        p.endedAt = e.at;
        if (e.error) p.error = e.error;
        for (const s of p.steps) {
          if (s.status !== 'running') continue;
          s.status = e.status === 'completed' ? 'completed' : e.status;
          s.endedAt = e.at;
        }
        break;
      }
      case 'warning':
        if (!this.warnings.includes(e.message)) this.warnings.push(e.message);
        break;
      case 'rollout.queued':
      case 'rollout.ended':
        break;
    }
    this.events.push(summarise(e));
  }

  finish(end: TraceEnding): Trace {
    for (const p of this.phases) {
      p.logs = this.logs.get(p.name)?.entries() ?? [];
      if (p.status === 'running') {
        p.status = end.status;
        p.endedAt = end.endedAt;
      }
      for (const s of p.steps) {
        if (s.status !== 'running') continue;
        s.status = p.status;
        s.endedAt = end.endedAt;
      }
    }
    const verifierPhase = this.phases.find((p) => p.name === 'verifier');
    const verifierSubstrate: Trace['provider']['verifierSubstrate'] = !this.verifier
      ? 'none'
      : this.init.providerKind === 'url'
        ? 'borrowed'
        : verifierPhase?.reused
          ? 'reused'
          : 'fresh';
    return {
      schemaVersion: TRACE_SCHEMA_VERSION,
      rolloutId: this.init.rolloutId,
      ...(this.init.jobId ? { jobId: this.init.jobId } : {}),
      startedAt: this.init.startedAt,
      endedAt: end.endedAt,
      durationMs: Math.max(0, Date.parse(end.endedAt) - this.t0),
      task: this.task,
      verifier: this.verifier,
      agent: this.init.agent,
      provider: {
        kind: this.init.providerKind,
        verifierSubstrate,
        ...(this.init.dockerHost ? { dockerHost: this.init.dockerHost } : {}),
      },
      phases: this.phases,
      ...(this.prompt !== undefined ? { prompt: this.prompt } : {}),
      ...(this.answer !== undefined ? { answer: this.answer } : {}),
      ...(this.actorResult !== undefined ? { actorResult: this.actorResult } : {}),
      agentSteps: this.agentSteps,
      result: end.result,
      status: end.status,
      error: end.error,
      warnings: this.warnings,
      events: this.events,
    };
  }

  private logOf(name: PhaseName): BoundedLog {
    let log = this.logs.get(name);
    if (!log) {
      const side = this.init.sideLogs;
      this.logs.set(name, (log = new BoundedLog(() => side?.open(name))));
    }
    return log;
  }

  private phase(name: PhaseName, at: string): TracePhase {
    let p = this.phases.find((x) => x.name === name);
    if (!p) {
      p = { name, substrate: null, reused: false, status: 'running', startedAt: at, steps: [], logs: [] };
      this.phases.push(p);
    }
    return p;
  }
}

function summarise(e: RolloutEvent): TraceEvent {
  const base: TraceEvent = { at: e.at, type: e.type };
  switch (e.type) {
    case 'phase.started':
      return { ...base, phase: e.phase, message: e.substrate ? `${e.substrate.provider} ${e.substrate.id}${e.reused ? ' (reused)' : ''}` : undefined };
    case 'step':
      return { ...base, phase: e.phase, step: e.step, message: e.detail ? `${e.status}: ${e.detail}` : e.status };
    case 'grade':
      return { ...base, phase: e.phase, message: `reward ${e.result.reward}${e.authoritative ? '' : ' (provisional)'}` };
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
