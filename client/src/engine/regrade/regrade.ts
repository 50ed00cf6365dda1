/**
 * Grades a stored rollout again with the current source, without its agent,
 * through the engine's one run entry. A rollout that had a verifier: only the
 * current verifier runs, on the actor result frame the trace recorded (what
 * the verifier got then). Without a verifier: a fresh actor task's first
 * yield gets the recorded answer and the actor grades it. The new trace links
 * back with `regrade.of` and names the grader it ran
 * (docs/grader-workbench.md).
 */
import { resolve } from 'node:path';
import { errorMessage } from '../errors';
import type { FinishedRollout } from '../outcome';
import { NO_VERIFIER_NOW, type RecordedActor, type RunContext, type RunTask, type TaskRunRequest } from '../runRequest';
import type { Trace } from '../../../../common/trace/schema';
import { DEFAULT_TRACE_DIR, writeTrace } from '../trace/store';
import { gradeDelta, type GradeDelta } from './delta';
import { ReplayAgent } from './replayAgent';

export interface RegradeOptions {
  cwd: string;
  /** auto | docker | local | tcp://HOST:PORT */
  runtime: string;
  dockerHost?: string;
  image?: string;
  /** Relative to `cwd`; default `.hud-studio/traces`; null keeps no regrade trace. */
  traceDir?: string | null;
  context?: RunContext;
  /** The run entry; tests and the pool pass their own. */
  run?: RunTask;
}

export interface RegradeResult {
  original: Trace;
  /** The regrade's trace; absent when it could not run. */
  trace?: Trace;
  tracePath?: string;
  delta: GradeDelta | null;
  /** The template (or its verifier) changed since the stored rollout ran. */
  stale: boolean;
  /** Why there is no delta. */
  error?: string;
}

/** Why a stored rollout cannot be graded again, or undefined when it can. */
export function cannotRegrade(t: Trace): string | undefined {
  if (t.task.kind === 'harbor') {
    if (t.harbor?.environmentMode === 'shared') {
      return "a shared-mode Harbor trial is graded inside the agent's container, whose state was not kept; only separate-mode trials regrade from their stored artifacts";
    }
    if (!t.harbor?.trialDir) return 'the trace names no trial folder, so there are no stored artifacts to verify';
    return undefined;
  }
  if (t.status === 'cancelled') return 'the rollout was cancelled before its agent answered';
  if (!('answer' in t) || t.answer === undefined)
    return 'the rollout recorded no answer (it failed before its agent answered)';
  return undefined;
}

export async function regradeTrace(original: Trace, opts: RegradeOptions): Promise<RegradeResult> {
  const why = cannotRegrade(original);
  if (why) return { original, delta: null, stale: false, error: why };
  const run = opts.run ?? (await import('../runTask')).runTask;
  const trialDir = original.task.kind === 'harbor' ? original.harbor?.trialDir : undefined;
  const request = (recorded: RecordedActor): TaskRunRequest => ({
    ref: original.task.ref,
    cwd: opts.cwd,
    runtime: opts.runtime,
    agent: {
      instance: new ReplayAgent(
        original.answer,
        original.rolloutId,
        trialDir ? 'the stored artifacts' : recorded.actorResult ? 'the recorded actor result' : undefined,
      ),
    },
    consent: { serviceAccess: false, sharedSecrets: false },
    // A Harbor regrade writes a trial folder beside its trace; the trace is written again below, linked.
    traceDir: trialDir ? (opts.traceDir ?? DEFAULT_TRACE_DIR) : null,
    recorded,
    ...(opts.dockerHost ? { dockerHost: opts.dockerHost } : {}),
    ...(opts.image ? { image: opts.image } : {}),
  });
  const actorResult = recordedActorResult(original);
  let done: FinishedRollout;
  try {
    const recorded: RecordedActor = trialDir
      ? { answer: original.answer, trialDir }
      : { answer: original.answer, ...(actorResult ? { actorResult } : {}) };
    done = await run(request(recorded), opts.context ?? {});
    // The verifier was taken out of the task since: its actor grades the answer instead.
    if (actorResult && done.trace.error?.code === NO_VERIFIER_NOW) {
      // A rollout of its own: the id a batch gave the first attempt is that attempt's.
      const { rolloutId: _first, ...context } = opts.context ?? {};
      done = await run(request({ answer: original.answer }), context);
    }
  } catch (err) {
    return { original, delta: null, stale: false, error: errorMessage(err) };
  }
  const trace: Trace = {
    ...done.trace,
    regrade: { of: original.rolloutId, graderHash: graderHash(done.trace) },
  };
  const stale = isStale(original, trace);
  let tracePath: string | undefined;
  if (opts.traceDir !== null) tracePath = writeTrace(resolve(opts.cwd, opts.traceDir ?? DEFAULT_TRACE_DIR), trace);
  if (done.status !== 'completed') {
    const error = done.error?.message ?? done.status;
    return { original, trace, ...(tracePath ? { tracePath } : {}), delta: null, stale, error };
  }
  return {
    original,
    trace,
    ...(tracePath ? { tracePath } : {}),
    delta: gradeDelta(original.result, trace.result),
    stale,
  };
}

/**
 * The actor result frame a verifier judged in the stored rollout, when it had
 * a verifier and the frame was recorded (an actor that failed to grade left a
 * stand-in frame holding the answer, docs/hud-protocol.md).
 */
export function recordedActorResult(t: Trace): Record<string, unknown> | undefined {
  const frame = t.actorResult;
  if (!t.verifier || typeof frame !== 'object' || frame === null || Array.isArray(frame)) return undefined;
  return frame as Record<string, unknown>;
}

/** The grader's identity: the verifier's source hash when there is one, else the task's. */
export function graderHash(t: Pick<Trace, 'task' | 'verifier'>): string {
  return t.verifier?.sourceHash ?? t.task.sourceHash;
}

/** True when the template (or verifier) source a trace ran differs from the one `current` ran. */
export function isStale(stored: Pick<Trace, 'task' | 'verifier'>, current: Pick<Trace, 'task' | 'verifier'>): boolean {
  return stored.task.sourceHash !== current.task.sourceHash || graderHash(stored) !== graderHash(current);
}
