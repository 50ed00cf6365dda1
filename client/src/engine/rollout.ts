/**
 * One rollout, by the rules of docs/hud-protocol.md: the actor task's whole
 * lifecycle, then the verifier, on the same substrate and channel when the
 * verifier is in the same environment without its own runtime_config, else
 * on a fresh one: acquired while the actor works when the provider isolates
 * its substrates (Docker), after the actor's is gone otherwise. Every step is reported
 * as a typed event; the trace is built from those same events and written
 * before `rollout.ended` goes out, so listeners can open it.
 */
import { relative, resolve } from 'node:path';
import type { Agent, AgentContext } from './agents/agent';
import type { ModelEndpoint } from './agents/llm/modelRef';
import { openJudgeGateway } from './gateway/judgeGateway';
import { promptToText } from './agents/agent';
import { checkStartFrame } from './startFrame';
import { ControlChannel } from './channel/client';
import type { GradeFrame, HelloResult } from './channel/messages';
import { openTunnel } from './channel/tunnel';
import { HUD_STUDIO_SHELL_PROTOCOL } from './capabilityProtocols';
import { Deadline, abortable } from './deadline';
import { discoverTasks, type DiscoveredTask, type DiscoveredVerifier, type TaskRowError } from './discover';
import { CancelledError, HudStudioError, ProtocolError, TimeoutError, UsageError, errorMessage, fixOf } from './errors';
import type { Fix } from '../../../common/fix';
import { finishedRollout, type FinishedRollout } from './outcome';
import { PhaseFailure } from './phaseFailure';
import { EventHub } from '../../../common/events';
import type { SdkChoice } from './providers/servingSdk';
import { actorErrorResult, gradeFromFrame } from './grade';
import { LocalProvider } from './providers/local';
import type { EnvironmentSpec, Provider, RuntimeConfig, Substrate } from './providers/provider';
import { reachableWhy, turnEndWarning } from './providers/turnEndCheck';
import { NO_VERIFIER_NOW, type RecordedActor } from './runRequest';
import { resolveTask, taskFileTarget, taskIdentity, type TaskFileTarget } from './taskLoader';
import { HeldLogs } from './heldLogs';
import { hintFits, rememberVerifierHint, verifierHint, verifierHintKey, type VerifierHint } from './verifierHints';
import { TraceRecorder, type RolloutEventInput as EventInput } from './trace/builder';
import { Redactor } from './trace/redact';
import type {
  ErrorPhase,
  GradeResult,
  LogStream,
  PhaseName,
  RolloutStatus,
  StepName,
  SubstrateInfo,
} from '../../../common/trace/schema';
import { DEFAULT_TRACE_DIR } from './trace/store';

export interface RolloutTimeouts {
  /** Whole rollout (CLI --timeout). */
  rolloutMs?: number;
  /** Each phase, unless the task's runtime_config.limits.run_timeout_s says otherwise. */
  phaseMs?: number;
  /** Getting a substrate ready and its server listening, unless limits.startup_timeout_s says otherwise. */
  startupMs?: number;
  /** tasks.start and tasks.grade each, unless the task's runtime_config.limits.run_timeout_s says otherwise. */
  callMs?: number;
}

export interface RolloutOptions {
  /** `PATH[::REF]`; PATH relative to `cwd`. */
  ref: string;
  cwd?: string;
  /** The env.py for a .json/.jsonl task file (default: env.py beside it). */
  module?: string;
  provider: Provider;
  agent: Agent;
  hub?: EventHub;
  signal?: AbortSignal;
  rolloutId?: string;
  jobId?: string;
  /** Default `<cwd>/.hud-studio/traces`; null writes no trace. */
  traceDir?: string | null;
  image?: string;
  useImageSdk?: boolean;
  /** Who serves: the image's own HUD SDK when it can (`auto`), always `bundled`, or only the `image`'s. */
  sdk?: SdkChoice;
  timeouts?: RolloutTimeouts;
  /** Per-environment variables (by environment name): only that environment's substrates get them. */
  credentials?: Record<string, Record<string, string>>;
  /** Secrets meant for the verifier only (e.g. HUD_API_KEY for LLMJudgeGrader). */
  verifierSecrets?: Record<string, string>;
  /** Inject verifierSecrets even when the verifier shares the actor's substrate. */
  allowSharedSecrets?: boolean;
  /** An already discovered row (eval discovers each file once). */
  task?: DiscoveredTask;
  dockerHost?: string;
  /** The judge model behind the verifier's model gateway (docs/models.md); none: no gateway. */
  judge?: ModelEndpoint;
  /** A regrade: with a recorded actor result, only the verifier runs (docs/grader-workbench.md). */
  recorded?: RecordedActor;
  /** The substrates' removals go to the caller, who waits for them (a job; see AcquireOptions). */
  removeLater?: (removal: Promise<void>) => void;
}

const DEFAULT_STARTUP_MS = 120_000;
const DEFAULT_REQUEST_MS = 30_000;
/** A template that never yields must not hold an eval slot for ever (docs/reliability.md). */
export const DEFAULT_CALL_MS = 600_000;

export async function runRollout(opts: RolloutOptions): Promise<FinishedRollout> {
  const cwd = opts.cwd ?? process.cwd();
  const recorder = new TraceRecorder(
    {
      ...(opts.rolloutId ? { rolloutId: opts.rolloutId } : {}),
      ...(opts.jobId ? { jobId: opts.jobId } : {}),
      taskRef: opts.task?.ref ?? opts.ref,
      agent: { kind: opts.agent.kind, detail: opts.agent.describe() },
      provider: { kind: opts.provider.kind, ...(opts.dockerHost ? { dockerHost: opts.dockerHost } : {}) },
      ...(opts.traceDir === null ? {} : { traceDir: resolve(cwd, opts.traceDir ?? DEFAULT_TRACE_DIR) }),
    },
    opts.hub ?? new EventHub(),
  );
  const { rolloutId } = recorder;
  // Declared secrets never reach a log line or the trace, whatever printed or returned them (docs/security.md).
  const redactor = new Redactor([...Object.values(opts.credentials ?? {}), opts.verifierSecrets ?? {}]);
  const emit = (e: EventInput): void => recorder.emit(redactor.deep(e));

  const run = new RolloutRun(opts, rolloutId, cwd, emit, recorder.span);
  let ending: Ending;
  let usage: UsageError | undefined;
  try {
    ending = await run.execute();
  } catch (err) {
    // Only a wrong reference escapes execute(): the caller's mistake, not the task's.
    usage = err instanceof UsageError ? err : undefined;
    const code = codeOf(err);
    const fix = fixOf(err);
    ending = {
      status: 'error',
      result: null,
      error: { phase: 'setup', message: errorMessage(err), ...(code ? { code } : {}), ...(fix ? { fix } : {}) },
    };
  } finally {
    await run.releaseAll();
  }

  if (run.forgeable) recorder.current.forgeable = true;
  const recorded = recorder.end(redactor.deep(ending), !usage);
  if (usage) throw usage;
  return finishedRollout(rolloutId, ending, recorded);
}

interface Ending {
  status: RolloutStatus;
  result: GradeResult | null;
  error: { phase: ErrorPhase; message: string; code?: string; fix?: Fix } | null;
}

function codeOf(err: unknown): string | undefined {
  return err instanceof HudStudioError ? err.code : undefined;
}

function hasRuntimeConfig(rc: RuntimeConfig | null | undefined): boolean {
  return !!rc && Object.values(rc).some((v) => v !== null && v !== undefined);
}

/** Keys that change how a substrate is provisioned (limits only change clocks). */
function needsOwnProvisioning(rc: RuntimeConfig | null | undefined): boolean {
  return !!rc && Object.entries(rc).some(([k, v]) => k !== 'limits' && v !== null && v !== undefined);
}

function seconds(v: unknown): number | undefined {
  return typeof v === 'number' && v > 0 ? v * 1000 : undefined;
}

interface Session {
  substrate: Substrate;
  channel: ControlChannel;
  hello: HelloResult;
}

class RolloutRun {
  private readonly live = new Set<Substrate>();
  /** The actor's substrate serves a model gateway of its own (runtime_config.needs_models). */
  private actorHasGateway = false;
  private readonly acquiring = new Set<Promise<void>>();
  private readonly channels = new Set<ControlChannel>();
  /** Substrates being released off the rollout's path (the actor's, while the verifier grades elsewhere). */
  private readonly releasing = new Set<Promise<void>>();
  private readonly rolloutClock: Deadline;
  private phase: PhaseName = 'actor';
  private stage: ErrorPhase = 'setup';
  private readonly ended = new Set<PhaseName>();
  private readonly started = new Set<PhaseName>();
  /**
   * Why the agent could change its own grade where the actor's substrate grades it: it had the server's
   * privileges, or it could put programs where the graders look them up.
   */
  private agentCouldForge: string | undefined;
  /** Set when the reward of record comes from a substrate such an agent controlled. */
  forgeable = false;

  constructor(
    private readonly opts: RolloutOptions,
    private readonly rolloutId: string,
    private readonly cwd: string,
    private readonly emit: (e: EventInput) => void,
    private readonly span: (name: string, phase: PhaseName, start: number, end: number) => void,
  ) {
    this.rolloutClock = new Deadline('rollout', opts.signal, opts.timeouts?.rolloutMs);
  }

  async execute(): Promise<Ending> {
    const signal = this.rolloutClock.signal;
    const recorded = this.opts.recorded;
    try {
      if (recorded?.actorResult) return await this.verifyRecorded(recorded.answer, recorded.actorResult, signal);
      return await this.actorThenVerifier(signal);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      const failure = err instanceof PhaseFailure ? err : this.classify(err, signal);
      if (this.started.has(this.phase) || failure.phase !== 'setup')
        this.endPhase(this.phase, failure.status, failure.message);
      const error = {
        phase: failure.phase,
        message: failure.message,
        ...(failure.code ? { code: failure.code } : {}),
        ...(failure.fix ? { fix: failure.fix } : {}),
      };
      return { status: failure.status, result: null, error };
    } finally {
      this.rolloutClock.dispose();
    }
  }

  async releaseAll(): Promise<void> {
    await Promise.all(this.acquiring);
    const channels = [...this.channels];
    this.channels.clear();
    if (this.opts.provider.kind === 'url') {
      // Nobody kills a borrowed server: withdraw our task instead of leaving it parked there.
      await Promise.all(
        channels.map(async (c) => (await c.cancel({ timeoutMs: 2_000 }).catch(() => false), await c.bye())),
      );
    }
    for (const c of channels) c.close();
    const subs = [...this.live];
    this.live.clear();
    await Promise.all([...subs.map((s) => this.releaseQuietly(s)), ...this.releasing]);
    this.releasing.clear();
  }

  private releaseQuietly(s: Substrate): Promise<void> {
    return s.release().catch((err: unknown) => this.warn(`releasing ${s.info.id} failed: ${errorMessage(err)}`));
  }

  /** The task file, which must lie inside its environment's folder (that folder is what a substrate gets). */
  private target(): TaskFileTarget {
    const { opts } = this;
    const target = taskFileTarget(opts.task?.ref ?? opts.ref, this.cwd, opts.module);
    if (relative(target.envDir, target.file).startsWith('..')) {
      throw new UsageError(`${target.displayPath} must be inside the environment's folder ${target.envDir}`);
    }
    return target;
  }

  private async actorThenVerifier(rolloutSignal: AbortSignal): Promise<Ending> {
    const { opts } = this;
    const target = this.target();

    // ---- actor phase: setup, prompt, agent, grade, teardown
    this.phase = 'actor';
    this.stage = 'actor';
    const actorClock = new Deadline('actor phase', rolloutSignal, opts.timeouts?.phaseMs);
    let actorSession: Session | undefined;
    let task: DiscoveredTask;
    let actorResult: Record<string, unknown>;
    let actorGrade: GradeResult;
    let actorGradeFailed: string | undefined;
    let stopActorGateway: (() => void) | undefined;
    /** The verifier's own substrate, made while the actor works when the provider isolates substrates. */
    let verifierSubstrate: EarlySubstrate | undefined;
    const acquireVerifierEarly = (t: DiscoveredTask): void => {
      const v = separateVerifier(t);
      if (!verifierSubstrate && v) startVerifier(v);
    };
    const startVerifier = (v: VerifierHint): void => {
      if (!this.isolates(target, v.runtimeConfig)) return;
      const logs = new HeldLogs();
      const substrate = this.acquire(
        target,
        v.runtimeConfig,
        'verifier',
        rolloutSignal,
        v.runtimeConfig?.limits?.startup_timeout_s,
        logs.log,
      );
      // Its server starts too (on its own container's loopback, out of the agent's reach), unless a judge gateway
      // must be opened on the substrate first: the verifier phase then only connects.
      const serving = opts.judge
        ? undefined
        : substrate.then((s) =>
            s.serve({
              envName: v.env,
              env: this.verifierEnv(v),
              signal: rolloutSignal,
              timeoutMs: this.startupMs(v.runtimeConfig),
              log: logs.log,
            }),
          );
      verifierSubstrate = new EarlySubstrate(substrate, logs, serving);
      // Awaited by the verifier phase; if the actor fails first, releaseAll() frees it and its error is moot.
      substrate.catch(() => undefined);
      serving?.catch(() => undefined);
    };
    try {
      this.step('setup', 'started');
      // Known before anything starts: no substrate is made for a run that cannot start.
      if (opts.task?.rowError) throw this.rowFailure(opts.task, opts.task.rowError, target);
      // Without a discovered row, the last discovery of this task says what its verifier needs.
      const hintKey = verifierHintKey(opts.provider.kind, target);
      const hint = opts.task ? undefined : verifierHint(hintKey);
      if (opts.task) acquireVerifierEarly(opts.task);
      else if (hint) startVerifier(hint);
      let substrate = await this.acquire(
        target,
        opts.task?.runtimeConfig ?? null,
        'actor',
        actorClock.signal,
        undefined,
      );
      if (opts.task) task = opts.task;
      else {
        this.stage = 'setup';
        task = await this.discover(substrate, target, actorClock.signal);
        this.stage = 'actor';
        if (task.rowError) throw this.rowFailure(task, task.rowError, target);
        if (needsOwnProvisioning(task.runtimeConfig)) {
          // Discovery ran on defaults; this task asks for its own image/resources.
          await this.release(substrate);
          substrate = await this.acquire(
            target,
            task.runtimeConfig,
            'actor',
            actorClock.signal,
            task.runtimeConfig?.limits?.startup_timeout_s,
          );
        }
      }
      const verifier = task.verifier;
      if (substrate.info.isolation === 'process' && substrate.agentSeat?.().privileged !== false) {
        // Said on every run: without a sandbox nothing keeps an agent from the verifier's copy or our environment.
        this.warn(
          "the local runtime is not a security boundary here (no bubblewrap): the agent and the environment's server run as your user and can read your files, the environment's and this process's variables, and signal its processes; install bubblewrap or use Docker to grade agents you do not trust (docs/security.md)",
        );
      }
      this.emit({
        type: 'rollout.started',
        task: taskIdentity(task, task.ref),
        verifier: verifier ? taskIdentity(verifier, task.ref) : null,
      });
      actorClock.reset(seconds(task.runtimeConfig?.limits?.run_timeout_s) ?? opts.timeouts?.phaseMs);
      this.startPhase('actor', substrate.info, false);

      const shared = sharesActorSubstrate(task);
      if (!opts.task) {
        const found = separateVerifier(task);
        if (hint && verifierSubstrate && !hintFits(hint, found)) {
          this.log(
            'stdout',
            "the verifier's substrate started from this task's last discovery no longer fits; released",
          );
          const unused = verifierSubstrate.substrate;
          verifierSubstrate = undefined;
          this.releasing.add(
            unused.then(
              (s) => this.releaseOffPath(s),
              () => undefined,
            ),
          );
        }
        rememberVerifierHint(hintKey, found);
      }
      acquireVerifierEarly(task);
      const actorEnv = { ...(opts.credentials?.[task.env] ?? {}) };
      if (shared) this.sharedSubstrateWarnings(task, actorEnv);
      if (task.runtimeConfig?.needs_models) {
        // Lives as long as the rollout: a verifier that shares this substrate shares its server, and so its gateway.
        stopActorGateway = await this.openActorGateway(substrate, actorEnv, rolloutSignal);
        if (stopActorGateway && shared)
          this.warn(
            "the verifier shares the actor's substrate and so its model gateway: the grader's model calls go out with the actor's token",
          );
      }
      if (opts.provider.kind === 'url' && verifier) {
        this.warn(
          `the substrate is borrowed (${substrate.info.address ?? substrate.info.id}): the verifier talks to the same live server the actor used`,
        );
      }

      actorSession = await this.open(substrate, task, actorEnv, actorClock.signal, task.runtimeConfig);
      this.step('setup', 'completed');

      this.step('prompt', 'started');
      const prompt = await this.timed(
        'tasks.start',
        actorSession.channel.start(task.id, task.args, {
          timeoutMs: this.callMs(task.runtimeConfig),
          signal: actorClock.signal,
        }),
      );
      checkStartFrame(prompt);
      this.emit({ type: 'prompt', prompt });
      this.step('prompt', 'completed');

      this.step('agent', 'started', opts.agent.describe());
      const answer = await this.timed('agent', this.runAgent(prompt, actorSession, actorClock.signal));
      this.step('agent', 'completed');
      this.emit({ type: 'answer', answer });

      this.step('grade', 'started');
      try {
        actorResult = await this.timed(
          'tasks.grade',
          actorSession.channel.grade(answer, {
            timeoutMs: this.callMs(task.runtimeConfig),
            signal: actorClock.signal,
          }),
        );
        actorGrade = this.gradeOf(actorResult);
        this.step('grade', 'completed');
      } catch (err) {
        if (actorClock.signal.aborted || err instanceof CancelledError || err instanceof TimeoutError) throw err;
        // The answer must survive a broken actor grader: an authoritative verifier may still judge it.
        actorGradeFailed = `actor grading failed: ${errorMessage(err)}`;
        actorResult = actorErrorResult(answer, actorGradeFailed);
        actorGrade = this.gradeOf(actorResult);
        this.step('grade', 'error', actorGradeFailed);
      }
      this.emit({ type: 'grade', phase: 'actor', result: actorGrade, raw: actorResult, authoritative: !verifier });
      if (this.agentCouldForge && (!verifier || shared)) {
        this.forgeable = true;
        this.warn(
          `the reward is forgeable: ${this.agentCouldForge}, and the ${verifier ? 'verifier shares its substrate' : 'actor grades itself'}; give the task a verifier in an environment of its own`,
        );
      }

      this.step('teardown', 'started');
      if (shared) {
        this.step('teardown', 'completed', 'template closed by the server; substrate kept for the verifier');
      } else {
        // A verifier on a container of its own need not wait for the actor's to go (releaseAll() still does).
        await this.close(actorSession, !!verifier && this.isolates(target, task.runtimeConfig));
        actorSession = undefined;
        this.step('teardown', 'completed');
      }
      if (actorGradeFailed && !verifier) throw new PhaseFailure('actor', 'error', actorGradeFailed, 'grade');
      this.endPhase('actor', actorGradeFailed ? 'error' : 'completed', actorGradeFailed);

      if (!verifier) return { status: 'completed', result: actorGrade, error: null };

      // ---- verifier phase: setup, grading; no agent; authoritative (its own clock)
      actorClock.dispose();
      this.phase = 'verifier';
      this.stage = 'verifier';
      const verifierResult = await this.verifierPhase(
        verifier,
        target,
        shared ? actorSession : undefined,
        actorResult,
        rolloutSignal,
        verifierSubstrate,
      );
      // As in the SDK: the verifier's reward stands, but the run is marked errored (docs/sdk-compatibility.md).
      if (actorGradeFailed)
        return {
          status: 'error',
          result: verifierResult,
          error: { phase: 'actor', message: actorGradeFailed, code: 'grade' },
        };
      return { status: 'completed', result: verifierResult, error: null };
    } catch (err) {
      if (err instanceof UsageError || err instanceof PhaseFailure) throw err;
      throw this.classify(err, this.phase === 'actor' ? actorClock.signal : rolloutSignal);
    } finally {
      stopActorGateway?.();
      actorClock.dispose();
    }
  }

  /**
   * The actor's own model gateway, for an environment that declares it calls
   * models (runtime_config.needs_models): a token of its own, never the
   * grader's, and none at all without that declaration (docs/models.md).
   */
  private async openActorGateway(
    substrate: Substrate,
    actorEnv: Record<string, string>,
    signal: AbortSignal,
  ): Promise<(() => void) | undefined> {
    if (!this.opts.judge) {
      this.warn(
        'the environment declares it needs models (runtime_config.needs_models) but no model upstream is configured (--judge-model, --judge-base-url, or HUD_GATEWAY_URL with HUD_API_KEY): its actor substrate has no model gateway',
      );
      return undefined;
    }
    const gw = await openJudgeGateway(
      substrate,
      this.opts.judge,
      signal,
      (stream, text) => this.log(stream, text),
      (call) => this.emit({ type: 'judge.call', call: { phase: 'actor', at: new Date().toISOString(), ...call } }),
    );
    Object.assign(actorEnv, gw.env);
    this.actorHasGateway = true;
    return gw.stop;
  }

  /**
   * A regrade of a rollout that had a verifier: no actor phase; the current
   * verifier judges the stored actor result frame, the same input it got in
   * the rollout (docs/grader-workbench.md). The substrate that discovered the
   * task serves the verifier when the verifier needs no provisioning of its
   * own: nothing ran on it but discovery, so it is as fresh as a new one.
   */
  private async verifyRecorded(
    answer: unknown,
    actorResult: Record<string, unknown>,
    rolloutSignal: AbortSignal,
  ): Promise<Ending> {
    const { opts } = this;
    const target = this.target();
    this.phase = 'verifier';
    this.stage = 'setup';
    let substrate: Substrate | undefined;
    let task: DiscoveredTask;
    const clock = new Deadline('verifier phase', rolloutSignal, opts.timeouts?.phaseMs);
    try {
      if (opts.task) task = opts.task;
      else {
        this.step('setup', 'started', 'discovering the current task');
        substrate = await this.acquire(target, null, 'verifier', clock.signal, undefined);
        task = await this.discover(substrate, target, clock.signal);
        this.step('setup', 'completed');
      }
      // A row that cannot start has no verifier to regrade with either.
      if (task.rowError) throw this.rowFailure(task, task.rowError, target);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw this.classify(err, clock.signal);
    } finally {
      clock.dispose();
    }
    const verifier = task.verifier;
    if (!verifier) {
      throw new PhaseFailure(
        'setup',
        'error',
        `${task.ref} has no verifier now, so the stored actor result has nothing to judge it`,
        NO_VERIFIER_NOW,
      );
    }
    this.emit({
      type: 'rollout.started',
      task: taskIdentity(task, task.ref),
      verifier: taskIdentity(verifier, task.ref),
    });
    this.emit({ type: 'answer', answer, actorResult });
    if (substrate && needsOwnProvisioning(verifier.runtimeConfig)) {
      await this.release(substrate);
      substrate = undefined;
    }
    this.stage = 'verifier';
    const result = await this.verifierPhase(verifier, target, undefined, actorResult, rolloutSignal, substrate);
    return { status: 'completed', result, error: null };
  }

  private async verifierPhase(
    verifier: DiscoveredVerifier,
    target: TaskFileTarget,
    shared: Session | undefined,
    actorResult: Record<string, unknown>,
    rolloutSignal: AbortSignal,
    /**
     * A fresh substrate for the verifier, not serving yet: one already made
     * (a regrade's), or one being made while the actor worked; none: one is acquired.
     */
    prepared?: Substrate | EarlySubstrate,
  ): Promise<GradeResult> {
    const clock = new Deadline(
      'verifier phase',
      rolloutSignal,
      seconds(verifier.runtimeConfig?.limits?.run_timeout_s) ?? this.opts.timeouts?.phaseMs,
    );
    let stopGateway: (() => void) | undefined;
    try {
      let session: Session;
      this.step('setup', 'started');
      if (shared) {
        session = shared;
        this.startPhase('verifier', shared.substrate.info, true);
        if (this.opts.judge && !this.actorHasGateway)
          this.warn("the verifier shares the actor's substrate, so it gets no model gateway (the actor could use it)");
        this.step('setup', 'completed', "reusing the actor's substrate and control channel");
      } else {
        const early = prepared instanceof EarlySubstrate ? prepared : undefined;
        const made = prepared instanceof EarlySubstrate ? undefined : prepared;
        // What the acquisition logs (while the actor worked, or now) goes under this phase's header, which
        // names the substrate and so comes after it; if it fails, the lines still come out, before the error.
        const acquired = early?.logs ?? new HeldLogs();
        const toPhase = (stream: LogStream, text: string): void => this.log(stream, text);
        const substrate: Substrate = await (
          early
            ? abortable(early.substrate, clock.signal)
            : made
              ? Promise.resolve(made)
              : this.acquire(
                  target,
                  verifier.runtimeConfig,
                  'verifier',
                  clock.signal,
                  verifier.runtimeConfig?.limits?.startup_timeout_s,
                  acquired.log,
                )
        ).catch((err: unknown) => {
          acquired.replay(toPhase);
          throw err;
        });
        this.startPhase('verifier', substrate.info, false);
        acquired.replay(toPhase);
        const env = this.verifierEnv(verifier);
        if (this.opts.judge) {
          const gw = await openJudgeGateway(
            substrate,
            this.opts.judge,
            clock.signal,
            (stream, text) => this.log(stream, text),
            (call) =>
              this.emit({ type: 'judge.call', call: { phase: 'verifier', at: new Date().toISOString(), ...call } }),
          );
          stopGateway = gw.stop;
          Object.assign(env, gw.env);
        }
        session = await this.open(substrate, verifier, env, clock.signal, verifier.runtimeConfig, early?.serving);
        this.step('setup', 'completed');
      }

      this.step('prompt', 'started');
      const prompt = await this.timed(
        'tasks.start',
        session.channel.start(verifier.id, verifier.args, {
          timeoutMs: this.callMs(verifier.runtimeConfig),
          signal: clock.signal,
        }),
      );
      this.step(
        'prompt',
        'completed',
        promptToText(prompt) ? `prompt: ${promptToText(prompt).slice(0, 200)}` : 'agent-less',
      );

      this.step('grade', 'started');
      // The actor's result frame goes over unchanged: the verifier judges exactly what the actor produced.
      const raw: GradeFrame = await this.timed(
        'tasks.grade',
        session.channel.grade(actorResult, {
          timeoutMs: this.callMs(verifier.runtimeConfig),
          signal: clock.signal,
        }),
      );
      const grade = this.gradeOf(raw);
      this.step('grade', 'completed');
      this.emit({ type: 'grade', phase: 'verifier', result: grade, raw, authoritative: true });

      this.step('teardown', 'started');
      await this.close(session);
      this.step('teardown', 'completed');
      this.endPhase('verifier', 'completed');
      return grade;
    } catch (err) {
      if (err instanceof PhaseFailure) throw err;
      // Never fall back to the actor's provisional grade: an errored verifier leaves the run ungraded.
      throw this.classify(err, clock.signal);
    } finally {
      stopGateway?.();
      clock.dispose();
    }
  }

  /** What the verifier's server gets: its environment's credentials and the verifier-only secrets. */
  private verifierEnv(verifier: { env: string }): Record<string, string> {
    return { ...(this.opts.credentials?.[verifier.env] ?? {}), ...(this.opts.verifierSecrets ?? {}) };
  }

  private startupMs(rc: RuntimeConfig | null | undefined): number {
    return seconds(rc?.limits?.startup_timeout_s) ?? this.opts.timeouts?.startupMs ?? DEFAULT_STARTUP_MS;
  }

  /** Times `work` as a stretch of the current phase (the trace's `spans`). */
  private async timed<T>(name: string, work: Promise<T>): Promise<T> {
    const phase = this.phase;
    const start = performance.now();
    try {
      return await work;
    } finally {
      this.span(name, phase, start, performance.now());
    }
  }

  private specOf(target: TaskFileTarget, runtimeConfig: RuntimeConfig | null): EnvironmentSpec {
    return {
      envFile: target.envFile,
      envDir: target.envDir,
      runtimeConfig,
      ...(this.opts.image ? { image: this.opts.image } : {}),
      ...(this.opts.useImageSdk ? { useImageSdk: true } : {}),
      ...(this.opts.sdk ? { sdk: this.opts.sdk } : {}),
    };
  }

  /** Whether the provider's substrate for this environment shares nothing an agent elsewhere could reach. */
  private isolates(target: TaskFileTarget, runtimeConfig: RuntimeConfig | null): boolean {
    return this.opts.provider.isolatesSubstrates?.(this.specOf(target, runtimeConfig)) ?? false;
  }

  private async acquire(
    target: TaskFileTarget,
    runtimeConfig: RuntimeConfig | null,
    phase: PhaseName,
    signal: AbortSignal,
    startupSeconds: number | null | undefined,
    log: (stream: LogStream, text: string) => void = (stream, text) => this.log(stream, text),
  ): Promise<Substrate> {
    const spec = this.specOf(target, runtimeConfig);
    const acquiring = this.opts.provider.acquire(spec, {
      rolloutId: this.rolloutId,
      phase,
      signal,
      log,
      startupTimeoutMs: seconds(startupSeconds) ?? this.opts.timeouts?.startupMs ?? DEFAULT_STARTUP_MS,
      span: (name, start, end) => this.span(name, phase, start, end),
      ...(this.opts.removeLater ? { removeLater: this.opts.removeLater } : {}),
    });
    return this.track(acquiring, signal);
  }

  /**
   * Every substrate a provider hands out joins `live` the moment it exists,
   * even when the rollout stopped waiting for it (cancel, timeout), so that
   * releaseAll() frees it before runRollout returns.
   */
  private track(acquiring: Promise<Substrate>, signal: AbortSignal): Promise<Substrate> {
    const joined = acquiring.then((substrate) => {
      this.live.add(substrate);
      return substrate;
    });
    this.acquiring.add(
      joined.then(
        () => undefined,
        () => undefined,
      ),
    );
    return abortable(joined, signal);
  }

  private async release(substrate: Substrate): Promise<void> {
    this.live.delete(substrate);
    await substrate.release();
  }

  private async discover(substrate: Substrate, target: TaskFileTarget, signal: AbortSignal): Promise<DiscoveredTask> {
    let where = substrate;
    let scratch: Substrate | undefined;
    if (this.opts.provider.kind === 'url') {
      // A borrowed server cannot run our helper: read the file where it lives, on this machine.
      const local = new LocalProvider();
      scratch = await this.track(
        local.acquire(
          { envFile: target.envFile, envDir: target.envDir, runtimeConfig: null },
          { rolloutId: this.rolloutId, phase: 'actor', signal, log: (s, t) => this.log(s, t) },
        ),
        signal,
      );
      where = scratch;
    }
    try {
      const tasks = await this.timed(
        'discovery',
        abortable(
          discoverTasks(where, {
            displayPath: target.displayPath,
            hostDir: target.envDir,
            file: `${where.workdir}/${relative(target.envDir, target.file)}`,
            ...(target.file !== target.envFile ? { module: where.envPath } : {}),
            signal,
            timeoutMs: this.opts.timeouts?.startupMs ?? DEFAULT_STARTUP_MS,
          }),
          signal,
        ),
      );
      return resolveTask(tasks, target);
    } finally {
      if (scratch) await this.release(scratch);
    }
  }

  /** Serves the environment, connects and says hello. */
  /** The limit of one tasks.start or tasks.grade: the task's run_timeout_s, else the caller's, else the default. */
  private callMs(rc: RuntimeConfig | null | undefined): number {
    return seconds(rc?.limits?.run_timeout_s) ?? this.opts.timeouts?.callMs ?? DEFAULT_CALL_MS;
  }

  private async open(
    substrate: Substrate,
    task: { env: string },
    env: Record<string, string>,
    signal: AbortSignal,
    rc: RuntimeConfig | null,
    /** The server's start, when it was begun ahead of this phase. */
    started?: Promise<void>,
  ): Promise<Session> {
    const serving =
      started ??
      substrate.serve({
        envName: task.env,
        env,
        signal,
        timeoutMs: this.startupMs(rc),
        log: (stream, text) => this.log(stream, text),
      });
    await this.timed('server start', abortable(serving, signal));
    const connecting = performance.now();
    const stream = await abortable(substrate.openChannel(signal), signal, (late) => void late.destroy());
    const channel = new ControlChannel(stream, {
      requestTimeoutMs: DEFAULT_REQUEST_MS,
      onNotification: (n) => this.log('server', `${n.method} ${JSON.stringify(n.params ?? {})}`),
    });
    this.channels.add(channel);
    const hello = await channel.hello(undefined, { signal });
    this.span('channel and hello', this.phase, connecting, performance.now());
    if (hello.env.name !== task.env) {
      throw new ProtocolError(
        `the server at ${substrate.info.id} serves environment "${hello.env.name}", but the task needs "${task.env}"`,
        {
          hint: 'serve the right environment (hud serve ... --env NAME), or run on a runtime HUD Studio starts itself',
          fix: { kind: 'runtime', use: 'docker-or-local' },
        },
      );
    }
    this.log(
      'engine',
      `connected to environment ${hello.env.name}${hello.env.version ? ` ${hello.env.version}` : ''} (session ${hello.session_id})`,
    );
    for (const b of hello.bindings) {
      if (b.protocol === HUD_STUDIO_SHELL_PROTOCOL) {
        // The SDK serves a workspace over ssh/2; the bundled runtime has no SSH server (docs/sdk-compatibility.md).
        this.warn(
          `capability "${b.name}" is a workspace shell served over ${HUD_STUDIO_SHELL_PROTOCOL} (HUD Studio's shell protocol), not ssh/2 as the HUD SDK serves it`,
        );
      }
    }
    return { substrate, channel, hello };
  }

  /** Says bye and releases the substrate; `offPath`: the release goes on while the rollout does. */
  private async close(session: Session, offPath = false): Promise<void> {
    await session.channel.bye();
    this.channels.delete(session.channel);
    if (!offPath) return this.release(session.substrate);
    void this.releaseOffPath(session.substrate);
  }

  /** Releases a substrate while the rollout goes on: it leaves `live`, and releaseAll() waits for the release. */
  private releaseOffPath(substrate: Substrate): Promise<void> {
    this.live.delete(substrate);
    const releasing = this.releaseQuietly(substrate);
    this.releasing.add(releasing);
    return releasing;
  }

  private async runAgent(prompt: unknown, session: Session, signal: AbortSignal): Promise<unknown> {
    const { substrate, hello } = session;
    const seat = substrate.agentSeat?.();
    let acted = false;
    let steps = 0;
    const tunnelled = new Set<string>();
    const ctx: AgentContext = {
      prompt,
      promptText: promptToText(prompt),
      workspace: {
        exec: (argv, o) => ((acted = true), seat ? seat.exec(argv, o) : substrate.exec(argv, o)),
        copyIn: (h, d) => (seat ? seat.copyIn(h, d) : substrate.copyIn(h, d)),
        workdir: seat?.workdir ?? substrate.workdir,
        bindings: hello.bindings.map((b) => ({ name: b.name, protocol: b.protocol, url: b.url, params: b.params })),
        openTunnel: async (name, sig) => {
          tunnelled.add(name);
          return openTunnel(await substrate.openChannel(sig), name, sig);
        },
      },
      signal,
      log: (stream, text) => this.log(stream, text),
      step: (text, toolCalls = [], usage) =>
        this.emit({
          type: 'agent.step',
          index: steps++,
          ...(text !== undefined ? { text } : {}),
          toolCalls,
          ...(usage ? { usage } : {}),
        }),
    };
    try {
      // Raced against the signal: an agent (or an exec under it) that ignores cancel must not block it.
      return await abortable(this.opts.agent.run(ctx), signal);
    } finally {
      // Nothing the agent started may run on while the environment grades (docs/security.md),
      // and no link it left may lead the grader where the agent could not go.
      if (acted && seat) {
        const check = await seat.end();
        const changed = turnEndWarning(check);
        if (changed) this.warn(changed);
        this.agentCouldForge = reachableWhy(check.reachable);
      }
      if (acted && (!seat || seat.privileged))
        this.agentCouldForge = `the agent ran with the server's privileges (${seat?.privilegedWhy ?? `the ${substrate.info.provider} substrate has no unprivileged seat for agents`})`;
      // The bundled runtime's workspace shell runs commands as the server's own user (docs/models.md).
      const serverShell = hello.bindings.find((b) => b.protocol === HUD_STUDIO_SHELL_PROTOCOL && tunnelled.has(b.name));
      if (serverShell)
        this.agentCouldForge ??= `the agent ran with the server's privileges (its commands ran through capability "${serverShell.name}" (${HUD_STUDIO_SHELL_PROTOCOL}) as the environment server's user)`;
    }
  }

  private gradeOf(frame: Record<string, unknown>): GradeResult {
    return gradeFromFrame(frame);
  }

  private sharedSubstrateWarnings(task: DiscoveredTask, actorEnv: Record<string, string>): void {
    this.warn(
      `the verifier runs on the actor's substrate (same environment "${task.env}", no verifier runtime_config): anything the verifier receives, the actor could have seen`,
    );
    const secrets = Object.keys(this.opts.verifierSecrets ?? {});
    if (!secrets.length) return;
    if (this.opts.allowSharedSecrets) {
      Object.assign(actorEnv, this.opts.verifierSecrets);
      this.warn(
        `verifier-only secrets (${secrets.join(', ')}) were injected into the shared substrate because sharing was allowed`,
      );
    } else {
      this.warn(
        `verifier-only secrets (${secrets.join(', ')}) were NOT injected into the shared substrate; allow shared secrets to opt in`,
      );
    }
  }

  /**
   * A task-file row that names no template of the module, or whose arguments
   * do not fit its template, fails its own run in the actor phase, where the
   * SDK fails it (at tasks.start, reward 0); the trace still records the
   * row's task, slug included. The file's other rows run (docs/engine.md,
   * "Task files").
   */
  private rowFailure(task: DiscoveredTask, failure: TaskRowError, target: TaskFileTarget): HudStudioError {
    this.emit({
      type: 'rollout.started',
      task: taskIdentity(task, task.ref),
      verifier: task.verifier ? taskIdentity(task.verifier, task.ref) : null,
    });
    return new HudStudioError('task-load', `row ${target.selector ?? '0'}: ${failure.message}`, {
      location: { file: target.displayPath, ...(failure.line ? { line: failure.line } : {}) },
    });
  }

  private classify(err: unknown, signal: AbortSignal): PhaseFailure {
    const reason: unknown = signal.aborted ? signal.reason : undefined;
    if (reason instanceof TimeoutError) return new PhaseFailure(this.stage, 'error', reason.message, 'timeout');
    if (signal.aborted || err instanceof CancelledError)
      return new PhaseFailure(this.stage, 'cancelled', 'rollout was cancelled', 'cancelled');
    const msg = this.stage === 'verifier' ? `verifier failed: ${errorMessage(err)}` : errorMessage(err);
    return new PhaseFailure(this.stage, 'error', msg, codeOf(err), fixOf(err));
  }

  private startPhase(phase: PhaseName, substrate: SubstrateInfo | null, reused: boolean): void {
    this.started.add(phase);
    this.emit({ type: 'phase.started', phase, substrate, reused });
  }

  private endPhase(phase: PhaseName, status: RolloutStatus, error?: string): void {
    if (this.ended.has(phase)) return;
    this.ended.add(phase);
    this.emit({ type: 'phase.ended', phase, status, ...(error ? { error } : {}) });
  }

  private step(step: StepName, status: 'started' | 'completed' | 'error' | 'cancelled', detail?: string): void {
    this.emit({ type: 'step', phase: this.phase, step, status, ...(detail ? { detail } : {}) });
  }

  private log(stream: LogStream, text: string): void {
    this.emit({ type: 'log', phase: this.phase, stream, text });
  }

  private warn(message: string): void {
    this.emit({ type: 'warning', phase: this.phase, message });
  }
}

/** The verifier runs on the actor's substrate and channel: same environment, no runtime_config of its own. */
function sharesActorSubstrate(task: DiscoveredTask): boolean {
  const v = task.verifier;
  return !!v && v.env === task.env && !hasRuntimeConfig(v.runtimeConfig);
}

/** The task's verifier when it needs a substrate of its own. */
function separateVerifier(task: DiscoveredTask): VerifierHint | undefined {
  return task.verifier && !sharesActorSubstrate(task) ? task.verifier : undefined;
}

/** The verifier's substrate while it is being acquired, before its phase, with what the acquisition logged. */
class EarlySubstrate {
  constructor(
    readonly substrate: Promise<Substrate>,
    readonly logs: HeldLogs,
    /** Its server's start, begun with it (none when the verifier phase must open a judge gateway first). */
    readonly serving?: Promise<void>,
  ) {}
}
