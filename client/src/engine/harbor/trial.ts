/**
 * One Harbor trial (DESIGN.md 1.5): start the environment, let the agent work
 * in its workdir, end the agent's sessions, run collect hooks and collect
 * artifacts, then verify on a clean /logs/verifier, either in the same
 * container (shared) or in a fresh one built from tests/Dockerfile that only
 * receives the declared artifacts (separate). Every step is an engine event,
 * so the trace and the live views are the same as for env.py rollouts.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { promptToText, type Agent, type AgentContext } from '../agents/agent';
import { Deadline } from '../deadline';
import type { ManagedContainer } from '../docker/types';
import { CancelledError, HudStudioError, TimeoutError, errorMessage } from '../errors';
import { PhaseFailure } from '../phaseFailure';
import type { RolloutEvent } from '../events';
import type { ErrorPhase, GradeResult, LogStream, PhaseName, StepName, SubstrateInfo } from '../trace/schema';
import { expandEnvTable, type EnvironmentConfig, type HarborTask } from '../../../../server/src/harbor';
import { LOGS_AGENT, LOGS_ARTIFACTS, collectDeclared, copyInAs, copyOutTo, type CollectedArtifact } from './artifacts';
import { startEnvironment, type EnvironmentDefinition, type TrialEnvironment } from './environment';
import { HarborTrialError, harborExceptionType } from './errors';
import { harborTaskIdentity, harborVerifierIdentity } from './identity';
import { toGradeResult, type HarborReward } from './reward';
import { OracleExitError } from './oracleAgent';
import { killNewProcesses, processSnapshot } from './sessions';
import { writeManifest, writeTrialText, type Timing, type TrialPaths } from './trialFolder';
import { collectVerifierLogs, lastLines, prepareLogDirs, resetVerifierState, runTests } from './verifier';
import { HEALTHCHECK_DEFAULTS, type Healthcheck } from '../../../../server/src/harbor';
import { DockerContainer } from '../docker/container';

type EventInput = RolloutEvent extends infer E ? (E extends RolloutEvent ? Omit<E, 'rolloutId' | 'at'> : never) : never;

export interface TrialOptions {
  task: HarborTask;
  /** Task reference as the user named it (the directory, relative to cwd). */
  ref: string;
  agent: Agent;
  rolloutId: string;
  paths: TrialPaths;
  signal: AbortSignal;
  emit: (e: EventInput) => void;
  /** Variables `${VAR}` expands from (the host environment). */
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** Inject `${VAR}`-expanded verifier variables into a shared container. */
  allowSharedSecrets: boolean;
  /** Overrides the environment's image (CLI --image); not for Compose tasks. */
  image?: string;
}

export interface TrialEnding {
  status: 'completed' | 'error' | 'cancelled';
  result: GradeResult | null;
  error: { phase: ErrorPhase; message: string; code?: string } | null;
  reward: HarborReward | null;
  agentTimedOut: boolean;
  /** Shared verification with a root agent: the agent controlled every program the tests ran. */
  forgeable: boolean;
  /** The agent's failure, as Harbor records it (its timeout or a non-zero exit). */
  agentError: { type: string; message: string; at: string } | null;
  /** The failure that ended the trial, with Harbor's exception type name. */
  exception: { type: string; message: string; traceback: string; at: string } | null;
  timings: { environment_setup: Timing | null; agent_execution: Timing | null; verifier: Timing | null };
}


export class HarborTrial {
  private phase: PhaseName = 'actor';
  private stage: ErrorPhase = 'setup';
  private readonly environments: TrialEnvironment[] = [];
  private readonly ended = new Set<PhaseName>();
  private agentTimedOut = false;
  private agentError: TrialEnding['agentError'] = null;
  private exception: TrialEnding['exception'] = null;
  private forgeable = false;
  private agentIsRoot = false;
  private agentExitCode: number | undefined;
  private stagingDir: string | undefined;
  private reward: HarborReward | null = null;
  private readonly timings: TrialEnding['timings'] = { environment_setup: null, agent_execution: null, verifier: null };

  constructor(private readonly o: TrialOptions) {}

  private get config() {
    return this.o.task.config;
  }

  async execute(): Promise<TrialEnding> {
    const { task } = this.o;
    const identity = harborTaskIdentity(task, this.o.ref);
    this.o.emit({ type: 'rollout.started', task: identity, verifier: { ...harborVerifierIdentity(task), ref: `${this.o.ref}/tests/test.sh` } });
    try {
      const actor = await this.runActor();
      const result = await this.runVerifier(actor);
      this.endPhase('verifier', 'completed');
      return this.ending('completed', result, null);
    } catch (err) {
      const failure = this.classify(err);
      const reason: unknown = this.o.signal.aborted ? this.o.signal.reason : undefined;
      this.exception = {
        type: failure.status === 'cancelled' ? 'CancelledError' : harborExceptionType(err, this.stage === 'verifier' ? 'verifier' : this.stage === 'setup' ? 'setup' : 'actor', reason instanceof TimeoutError),
        message: failure.message,
        traceback: err instanceof Error && err.stack ? err.stack : String(err),
        at: new Date().toISOString(),
      };
      this.endPhase('actor', failure.status, failure.message);
      if (this.stage === 'verifier') this.endPhase('verifier', failure.status, failure.message);
      return this.ending(failure.status, null, { phase: failure.phase, message: failure.message, ...(failure.code ? { code: failure.code } : {}) });
    }
  }

  /** Tears down whatever is still up; safe to call more than once. */
  async teardownAll(): Promise<void> {
    if (this.stagingDir) rmSync(this.stagingDir, { recursive: true, force: true });
    this.stagingDir = undefined;
    const errors: string[] = [];
    for (const env of this.environments.splice(0)) {
      await env.teardown().catch((err: unknown) => errors.push(errorMessage(err)));
    }
    for (const e of errors) this.warn(`teardown: ${e}`);
  }

  // ---------------------------------------------------------------- actor

  private async runActor(): Promise<{ env: TrialEnvironment; main: ManagedContainer; workdir: string; collected: CollectedArtifact[] }> {
    const { task } = this.o;
    const setupStart = new Date().toISOString();
    this.step('setup', 'started');
    const envVars = this.expand(task.config.environment.env, 'environment.env');
    const definition: EnvironmentDefinition =
      task.environment.kind === 'compose'
        ? {
            kind: 'compose',
            composeFile: task.environment.composeFile,
            mainBase: 'image' in task.environment.main ? task.environment.main : { context: '.', dockerfile: task.environment.main.dockerfile },
          }
        : this.o.image
          ? { kind: 'image', image: this.o.image }
          : task.environment.kind === 'image'
            ? { kind: 'image', image: task.environment.image }
            : { kind: 'dockerfile', contextDir: task.environment.contextDir, dockerfile: task.environment.dockerfile };
    if (this.o.image && task.environment.kind === 'compose') this.warn(`--image ${this.o.image} was ignored: this task's environment is a Compose project`);
    const env = await this.start({
      definition,
      config: task.config.environment,
      where: '[environment]',
      env: envVars,
      ...(task.config.agent.network_mode ? { networkOverride: task.config.agent.network_mode } : {}),
    });
    this.startPhase('actor', env.substrate, false);
    this.stage = 'actor';
    const main = await env.service('main');
    await prepareLogDirs(main);
    if (task.config.environment.healthcheck) await this.healthcheck(main, task.config.environment.healthcheck);
    const workdir = task.config.environment.workdir ?? ((await main.exec(['pwd'], { timeoutMs: 30_000 })).stdout.trim() || '/');
    this.step('setup', 'completed');
    this.timings.environment_setup = { started_at: setupStart, finished_at: new Date().toISOString() };

    const before = await processSnapshot(main);
    await this.runAgent(main, workdir);
    this.step('teardown', 'started', 'ending agent sessions');
    await killNewProcesses(main, before);
    this.step('teardown', 'completed');

    this.step('collect', 'started');
    await this.runCollectHooks(env);
    const collected = await collectDeclared(task.config.artifacts, (s) => env.service(s), this.o.paths.artifacts, (m) => this.warn(m));
    this.agentIsRoot = await this.runsAsRoot(main, task.config.agent.user);
    // /logs/artifacts is kept apart from the declared copies so a separate verifier gets exactly what the actor
    // left there.
    const logsArtifacts = join(this.staging(), 'logs-artifacts');
    mkdirSync(logsArtifacts, { recursive: true });
    await copyOutTo(main, LOGS_ARTIFACTS, logsArtifacts);
    cpSync(logsArtifacts, join(this.o.paths.artifacts, 'logs', 'artifacts'), { recursive: true, force: true, verbatimSymlinks: true });
    writeManifest(this.o.paths, [
      { source: LOGS_ARTIFACTS, destination: 'logs/artifacts', type: 'directory', status: readdirSync(logsArtifacts).length ? 'ok' : 'empty', service: null },
      ...collected.map((c) => ({
        source: c.source,
        destination: c.destination,
        type: c.type,
        status: c.missing ? ('failed' as const) : ('ok' as const),
        service: c.service === 'main' ? null : c.service,
      })),
    ]);
    await copyOutTo(main, LOGS_AGENT, this.o.paths.agent);
    if (this.agentExitCode !== undefined) writeTrialText(this.o.paths.agent, 'exit-code.txt', String(this.agentExitCode));
    this.step('collect', 'completed', `${collected.filter((c) => !c.missing).length}/${collected.length} declared artifact(s)`);
    return { env, main, workdir, collected };
  }

  private async runAgent(main: ManagedContainer, workdir: string): Promise<void> {
    const { task, agent } = this.o;
    const timeoutSec = task.config.agent.timeout_sec;
    const timeoutMs = timeoutSec !== undefined ? timeoutSec * 1000 : undefined;
    const deadline = new Deadline(`agent (timeout_sec = ${timeoutSec})`, this.o.signal, timeoutMs);
    const prompt = { prompt: task.instruction };
    this.o.emit({ type: 'prompt', prompt });
    const started = new Date().toISOString();
    this.step('agent', 'started', agent.describe());
    const output: string[] = [];
    let steps = 0;
    const user = task.config.agent.user;
    const ctx: AgentContext = {
      prompt,
      promptText: promptToText(prompt),
      workspace: {
        exec: (argv, opts = {}) => {
          const asUser = opts.user ?? user;
          return main.exec(argv, { ...opts, ...(asUser ? { user: asUser } : {}), signal: opts.signal ?? deadline.signal });
        },
        copyIn: (hostPath, dest) => main.copyIn(hostPath, dest),
        workdir,
        bindings: [],
      },
      signal: deadline.signal,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      log: (stream, text) => {
        output.push(text);
        this.log(stream, text);
      },
      step: (text, toolCalls = []) => this.o.emit({ type: 'agent.step', index: steps++, ...(text !== undefined ? { text } : {}), toolCalls }),
    };
    try {
      const answer = await agent.run(ctx);
      this.o.emit({ type: 'answer', answer });
      this.step('agent', 'completed');
    } catch (err) {
      if (this.o.signal.aborted) throw err;
      if (deadline.signal.reason instanceof TimeoutError) {
        this.agentTimedOut = true;
        this.agentError = { type: 'AgentTimeoutError', message: `Agent execution timed out after ${timeoutSec} seconds`, at: new Date().toISOString() };
        this.step('agent', 'error', `timed out after ${task.config.agent.timeout_sec} s`);
        this.warn(`the agent timed out after ${task.config.agent.timeout_sec} s ([agent] timeout_sec); verification still runs on what it left`);
      } else {
        this.agentError = { type: agentErrorType(err), message: errorMessage(err), at: new Date().toISOString() };
        if (err instanceof OracleExitError) this.agentExitCode = err.exitCode;
        this.step('agent', 'error', errorMessage(err));
        this.warn(`the agent failed: ${errorMessage(err)}; verification still runs on what it left`);
      }
    } finally {
      deadline.dispose();
      this.timings.agent_execution = { started_at: started, finished_at: new Date().toISOString() };
      writeTrialText(this.o.paths.agent, `${agent.kind}.txt`, output.join('\n') + (output.length ? '\n' : ''));
    }
  }

  private async runCollectHooks(env: TrialEnvironment): Promise<void> {
    const hooks = this.config.verifier.collect;
    for (const [i, hook] of hooks.entries()) {
      const container = await env.service(hook.service);
      const r = await container.exec(['/bin/sh', '-c', hook.command], {
        timeoutMs: hook.timeout_sec * 1000,
        signal: this.o.signal,
        ...(hook.user ? { user: hook.user } : {}),
      });
      if (this.o.signal.aborted) throw new CancelledError('collect hook');
      writeTrialText(this.o.paths.verifier, `collect-${i}-${hook.service}.log`, `$ ${hook.command}\n${r.stdout}${r.stderr ? `\n[stderr]\n${r.stderr}` : ''}`);
      const what = `collect hook ${i} (${hook.service}: ${hook.command})`;
      if (r.timedOut) this.warn(`${what} timed out after ${hook.timeout_sec} s`);
      else if (r.exitCode !== 0) this.warn(`${what} exited with code ${r.exitCode}: ${lastLines(r.stderr, 3)}`);
      else this.log('engine', `${what} done`);
    }
  }

  // ------------------------------------------------------------- verifier

  private async runVerifier(actor: { env: TrialEnvironment; main: ManagedContainer; workdir: string; collected: CollectedArtifact[] }): Promise<GradeResult> {
    const { task } = this.o;
    const settings = task.config.verifier;
    const separate = settings.environmentMode === 'separate';
    const started = new Date().toISOString();
    const verifierVars = this.expandVerifierEnv(separate);
    let container: ManagedContainer;
    let cwd: string | undefined;
    if (!separate) {
      this.endPhase('actor', 'completed');
      this.phase = 'verifier';
      this.stage = 'verifier';
      this.startPhase('verifier', actor.env.substrate, true);
      container = actor.main;
      cwd = actor.workdir;
      if (this.agentIsRoot) {
        this.forgeable = true;
        this.warn('this reward is forgeable: the agent ran as root in the container the shared verifier uses, so it controlled every program the tests ran (use environment_mode = "separate" for a reward the agent cannot touch)');
      }
    } else {
      this.step('teardown', 'started', 'stopping the actor environment');
      await this.teardown(actor.env);
      this.step('teardown', 'completed');
      this.endPhase('actor', 'completed');
      this.phase = 'verifier';
      this.stage = 'verifier';
      this.step('setup', 'started');
      // Without its own table, Harbor's separate verifier reuses the top-level [environment] (built from tests/).
      const venv = settings.environment!;
      const env = await this.start({
        definition: venv.docker_image ? { kind: 'image', image: venv.docker_image } : { kind: 'dockerfile', contextDir: join(task.dir, 'tests'), dockerfile: 'Dockerfile' },
        config: venv,
        where: settings.environmentInherited ? '[environment] (inherited by the separate verifier)' : '[verifier.environment]',
        env: { ...this.expand(venv.env, settings.environmentInherited ? 'environment.env' : 'verifier.environment.env'), ...verifierVars },
        ...(settings.networkMode ? { networkOverride: settings.networkMode } : {}),
        ...(settings.user ? { user: settings.user } : {}),
      });
      this.startPhase('verifier', env.substrate, false);
      container = await env.service('main');
      await prepareLogDirs(container);
      await this.copyArtifactsIn(container, actor.collected);
      this.step('setup', 'completed');
      cwd = venv.workdir;
    }

    this.step('verify', 'started');
    // Shared: the task's tests are uploaded; separate: the verifier image owns /tests.
    await resetVerifierState(container, separate ? undefined : join(task.dir, 'tests'));
    const output: string[] = [];
    const mergedOutput = join(this.staging(), 'test-stdout.txt');
    const tests = await runTests(container, {
      env: separate ? {} : verifierVars,
      timeoutMs: settings.timeoutSec * 1000,
      signal: this.o.signal,
      outputFile: mergedOutput,
      ...(settings.user ? { user: settings.user } : {}),
      ...(cwd ? { cwd } : {}),
      onOutput: (stream, text) => {
        output.push(text);
        for (const line of text.replace(/\n$/, '').split('\n')) this.log(stream, line);
      },
    });
    if (this.o.signal.aborted) throw new CancelledError('verifier');
    this.timings.verifier = { started_at: started, finished_at: new Date().toISOString() };
    if (tests.timedOut) {
      this.keepTestOutput(mergedOutput);
      this.step('verify', 'error', 'timed out');
      throw new HarborTrialError('VerifierTimeoutError', 'harbor-verifier', `tests/test.sh timed out after ${settings.timeoutSec} s ([verifier] timeout_sec); last lines:\n${lastLines(output.join(''), 20)}`, {
        hint: 'raise [verifier] timeout_sec or make the tests faster',
      });
    }
    this.step('verify', 'completed', `exit code ${tests.exitCode}`);
    this.step('grade', 'started');
    try {
      this.reward = await collectVerifierLogs(container, this.o.paths.verifier, tests);
    } finally {
      this.keepTestOutput(mergedOutput);
    }
    if (this.reward.note) this.warn(this.reward.note);
    const result = toGradeResult(this.reward);
    this.o.emit({ type: 'grade', phase: 'verifier', result, raw: result.info, authoritative: true });
    this.step('grade', 'completed', `reward ${this.reward.reward} from ${this.reward.source}`);
    return result;
  }

  /** Harbor keeps the test script's stdout and stderr merged, whole, in verifier/test-stdout.txt. */
  private keepTestOutput(staged: string): void {
    if (existsSync(staged)) cpSync(staged, join(this.o.paths.verifier, 'test-stdout.txt'));
  }

  /** Whether the agent's commands run as root (the task's agent.user, else the image's user). */
  private async runsAsRoot(main: ManagedContainer, user: string | undefined): Promise<boolean> {
    const effective = user ?? (main instanceof DockerContainer ? main.user : '');
    return /^(|root|0)(:.*)?$/.test(effective);
  }

  /**
   * verifier.env: always for a separate verifier; in a shared container only literal values unless the user opted
   * in.
   */
  private expandVerifierEnv(separate: boolean): Record<string, string> {
    const table = this.config.verifier.env;
    const all = this.expand(table, 'verifier.env');
    if (separate || this.o.allowSharedSecrets) {
      if (!separate && Object.keys(all).length) this.warn(`verifier.env (${Object.keys(all).join(', ')}) was passed to tests in the agent's container because shared secrets were allowed`);
      return all;
    }
    const withheld = Object.keys(table).filter((k) => /\$\{/.test(table[k]!));
    for (const k of withheld) delete all[k];
    if (withheld.length) {
      this.warn(`verifier.env ${withheld.join(', ')} came from your environment and were NOT passed to the shared verifier (it runs in the agent's container); allow shared secrets to opt in, or use a separate verifier`);
    }
    return all;
  }

  /**
   * What a separate verifier receives, as in Harbor: the declared artifacts
   * at their original paths and /logs/artifacts, never /logs/agent. No
   * symlink travels (docs/harbor.md, "What the agent cannot forge").
   */
  private async copyArtifactsIn(container: ManagedContainer, collected: CollectedArtifact[]): Promise<void> {
    const dropped: string[] = [];
    for (const a of collected) {
      if (a.hostPath) dropped.push(...(await copyInAs(container, a.hostPath, posix.normalize(a.source))));
    }
    const logsArtifacts = join(this.staging(), 'logs-artifacts');
    if (existsSync(logsArtifacts)) dropped.push(...(await copyInAs(container, logsArtifacts, LOGS_ARTIFACTS)));
    if (dropped.length) this.warn(`symlinks among the artifacts were not copied into the verifier: ${dropped.slice(0, 10).join(', ')}`);
  }

  // ---------------------------------------------------------------- helpers

  /** Private host folder for copies that must not mix with the trial folder's. */
  private staging(): string {
    this.stagingDir ??= mkdtempSync(join(tmpdir(), 'hud-studio-trial-'));
    return this.stagingDir;
  }

  private async start(opts: { definition: EnvironmentDefinition; config: EnvironmentConfig; where: string; env: Record<string, string>; user?: string; networkOverride?: EnvironmentConfig['network_mode'] }): Promise<TrialEnvironment> {
    const env = await startEnvironment({
      ...opts,
      rolloutId: this.o.rolloutId,
      phase: this.phase,
      signal: this.o.signal,
      log: (line) => this.log('engine', line),
    });
    this.environments.push(env);
    for (const w of env.warnings) this.warn(w);
    return env;
  }

  private async teardown(env: TrialEnvironment): Promise<void> {
    const i = this.environments.indexOf(env);
    if (i >= 0) this.environments.splice(i, 1);
    await env.teardown();
  }

  /**
   * Harbor's healthcheck: during start_period_sec, failures do not count and
   * checks come every start_interval_sec; after it, `retries` consecutive
   * failures (every interval_sec) mean the environment never became healthy.
   */
  private async healthcheck(main: ManagedContainer, given: Healthcheck): Promise<void> {
    const check: { [K in keyof typeof HEALTHCHECK_DEFAULTS]?: number | undefined } & { command: string } = given;
    const hc = {
      command: check.command,
      interval_sec: check.interval_sec ?? HEALTHCHECK_DEFAULTS.interval_sec,
      timeout_sec: check.timeout_sec ?? HEALTHCHECK_DEFAULTS.timeout_sec,
      retries: check.retries ?? HEALTHCHECK_DEFAULTS.retries,
      start_period_sec: check.start_period_sec ?? HEALTHCHECK_DEFAULTS.start_period_sec,
      start_interval_sec: check.start_interval_sec ?? HEALTHCHECK_DEFAULTS.start_interval_sec,
    };
    const graceEnds = Date.now() + hc.start_period_sec * 1000;
    let failures = 0;
    let last = '';
    for (;;) {
      const r = await main.exec(['/bin/sh', '-c', hc.command], { timeoutMs: hc.timeout_sec * 1000, signal: this.o.signal });
      if (this.o.signal.aborted) throw new CancelledError('healthcheck');
      if (r.exitCode === 0) return;
      last = lastLines(`${r.stdout}\n${r.stderr}`, 5);
      const inGrace = Date.now() < graceEnds;
      if (!inGrace && ++failures >= Math.max(1, hc.retries)) break;
      await sleep((inGrace ? hc.start_interval_sec : hc.interval_sec) * 1000, this.o.signal);
    }
    throw new HudStudioError('harbor-config', `the environment never became healthy: \`${hc.command}\` failed ${failures} times in a row${last ? `; last output:\n${last}` : ''}`, {
      hint: 'fix [environment] healthcheck or what it checks',
    });
  }

  private expand(table: Record<string, string>, key: string): Record<string, string> {
    const r = expandEnvTable(table, this.o.hostEnv);
    if (r.missing.length) {
      throw new HudStudioError('harbor-config', `${key} uses ${r.missing.map((m) => `\${${m}}`).join(', ')}, which ${r.missing.length > 1 ? 'are' : 'is'} not set`, {
        location: { file: this.o.task.tomlPath, key },
        hint: `export ${r.missing[0]} before running, or write \${${r.missing[0]}:-default}`,
      });
    }
    return r.env;
  }

  private classify(err: unknown): PhaseFailure {
    const reason: unknown = this.o.signal.aborted ? this.o.signal.reason : undefined;
    if (reason instanceof TimeoutError) return new PhaseFailure(this.stage, 'error', reason.message, 'timeout');
    if (this.o.signal.aborted || err instanceof CancelledError) return new PhaseFailure(this.stage, 'cancelled', 'rollout was cancelled', 'cancelled');
    const code = err instanceof HudStudioError ? err.code : undefined;
    const msg = this.stage === 'verifier' ? `verifier failed: ${errorMessage(err)}` : errorMessage(err);
    return new PhaseFailure(this.stage, 'error', msg, code);
  }

  private ending(status: TrialEnding['status'], result: GradeResult | null, error: TrialEnding['error']): TrialEnding {
    return {
      status,
      result,
      error,
      reward: status === 'completed' ? this.reward : null,
      agentTimedOut: this.agentTimedOut,
      forgeable: this.forgeable,
      agentError: this.agentError,
      exception: this.exception,
      timings: this.timings,
    };
  }

  private startPhase(phase: PhaseName, substrate: SubstrateInfo, reused: boolean): void {
    this.o.emit({ type: 'phase.started', phase, substrate, reused });
  }

  private endPhase(phase: PhaseName, status: 'completed' | 'error' | 'cancelled', error?: string): void {
    if (this.ended.has(phase)) return;
    this.ended.add(phase);
    this.o.emit({ type: 'phase.ended', phase, status, ...(error ? { error } : {}) });
  }

  private step(step: StepName, status: 'started' | 'completed' | 'error' | 'cancelled', detail?: string): void {
    this.o.emit({ type: 'step', phase: this.phase, step, status, ...(detail ? { detail } : {}) });
  }

  private log(stream: LogStream, text: string): void {
    this.o.emit({ type: 'log', phase: this.phase, stream, text });
  }

  private warn(message: string): void {
    this.o.emit({ type: 'warning', phase: this.phase, message });
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), ms);
    const onAbort = (): void => (clearTimeout(t), reject(new CancelledError('healthcheck')));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Harbor's exception type names for an agent's failure. */
function agentErrorType(err: unknown): string {
  if (err instanceof TimeoutError) return 'AgentTimeoutError';
  return 'NonZeroAgentExitCodeError';
}
