/**
 * One Harbor trial (docs/harbor.md): start the environment, let the agent work
 * in its workdir, end the agent's sessions, run collect hooks and collect
 * artifacts, then verify on a clean /logs/verifier, either in the same
 * container (shared) or in a fresh one built from tests/Dockerfile that only
 * receives the declared artifacts (separate). Every step is an engine event,
 * so the trace and the live views are the same as for env.py rollouts.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
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
import { LOGS_AGENT, LOGS_ARTIFACTS, LOGS_VERIFIER, collectDeclared, copyInAs, copyOutTo, type CollectedArtifact } from './artifacts';
import { startEnvironment, type EnvironmentDefinition, type TrialEnvironment } from './environment';
import { harborTaskIdentity, harborVerifierIdentity } from './identity';
import { toGradeResult, type HarborReward } from './reward';
import { killNewProcesses, processSnapshot } from './sessions';
import { writeTrialText, type Timing, type TrialPaths } from './trialFolder';
import { lastLines, prepareLogDirs, readReward, resetVerifierState, runTests } from './verifier';
import { streamLines } from '../output/streamLines';

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
  timings: { environment_setup: Timing | null; agent_execution: Timing | null; verifier: Timing | null };
}


const HEALTH_DEFAULTS = { interval_sec: 1, timeout_sec: 10, retries: 30, start_period_sec: 0 };
type HealthcheckGiven = { command: string } & { [K in keyof typeof HEALTH_DEFAULTS]?: number | undefined };

export class HarborTrial {
  private phase: PhaseName = 'actor';
  private stage: ErrorPhase = 'setup';
  private readonly environments: TrialEnvironment[] = [];
  private readonly ended = new Set<PhaseName>();
  private agentTimedOut = false;
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
        ? { kind: 'compose', composeFile: task.environment.composeFile }
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
    await this.healthcheck(main, task.config.environment);
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
    // /logs/artifacts is kept apart from the declared copies so a separate verifier gets exactly what the actor
    // left there.
    const logsArtifacts = join(this.staging(), 'logs-artifacts');
    mkdirSync(logsArtifacts, { recursive: true });
    await copyOutTo(main, LOGS_ARTIFACTS, logsArtifacts);
    cpSync(logsArtifacts, this.o.paths.artifacts, { recursive: true, force: true, verbatimSymlinks: true });
    await copyOutTo(main, LOGS_AGENT, this.o.paths.agent);
    this.step('collect', 'completed', `${collected.filter((c) => !c.missing).length}/${collected.length} declared artifact(s)`);
    return { env, main, workdir, collected };
  }

  private async runAgent(main: ManagedContainer, workdir: string): Promise<void> {
    const { task, agent } = this.o;
    const timeoutMs = task.config.agent.timeout_sec * 1000;
    const deadline = new Deadline(`agent (timeout_sec = ${task.config.agent.timeout_sec})`, this.o.signal, timeoutMs);
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
      timeoutMs,
      log: (stream, text) => {
        output.push(text);
        this.log(stream, text);
      },
      step: (text, toolCalls = [], usage) =>
        this.o.emit({ type: 'agent.step', index: steps++, ...(text !== undefined ? { text } : {}), toolCalls, ...(usage ? { usage } : {}) }),
    };
    try {
      const answer = await agent.run(ctx);
      this.o.emit({ type: 'answer', answer });
      this.step('agent', 'completed');
    } catch (err) {
      if (this.o.signal.aborted) throw err;
      if (deadline.signal.reason instanceof TimeoutError) {
        this.agentTimedOut = true;
        this.step('agent', 'error', `timed out after ${task.config.agent.timeout_sec} s`);
        this.warn(`the agent timed out after ${task.config.agent.timeout_sec} s ([agent] timeout_sec); verification still runs on what it left`);
      } else {
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
    const separate = task.config.verifier.environmentMode === 'separate';
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
    } else {
      this.step('teardown', 'started', 'stopping the actor environment');
      await this.teardown(actor.env);
      this.step('teardown', 'completed');
      this.endPhase('actor', 'completed');
      this.phase = 'verifier';
      this.stage = 'verifier';
      this.step('setup', 'started');
      const venv = task.config.verifier.environment!;
      const env = await this.start({
        definition: venv.docker_image ? { kind: 'image', image: venv.docker_image } : { kind: 'dockerfile', contextDir: join(task.dir, 'tests'), dockerfile: 'Dockerfile' },
        config: venv,
        where: '[verifier.environment]',
        env: { ...this.expand(venv.env, 'verifier.environment.env'), ...verifierVars },
        ...(task.config.verifier.user ? { user: task.config.verifier.user } : {}),
      });
      this.startPhase('verifier', env.substrate, false);
      container = await env.service('main');
      await prepareLogDirs(container);
      await this.copyArtifactsIn(container, actor.collected);
      this.step('setup', 'completed');
      cwd = venv.workdir;
    }

    this.step('verify', 'started');
    await resetVerifierState(container, join(task.dir, 'tests'));
    const output: string[] = [];
    const lines = streamLines((stream, line) => this.log(stream, line));
    const tests = await runTests(container, {
      env: separate ? {} : verifierVars,
      timeoutMs: task.config.verifier.timeoutSec * 1000,
      signal: this.o.signal,
      ...(task.config.verifier.user ? { user: task.config.verifier.user } : {}),
      ...(cwd ? { cwd } : {}),
      onOutput: (stream, text) => {
        output.push(text);
        lines.onOutput(stream, text);
      },
    });
    lines.end();
    if (this.o.signal.aborted) throw new CancelledError('verifier');
    writeTrialText(this.o.paths.verifier, 'test-stdout.txt', tests.stdout);
    writeTrialText(this.o.paths.verifier, 'test-stderr.txt', tests.stderr);
    await copyOutTo(container, LOGS_VERIFIER, this.o.paths.verifier);
    this.timings.verifier = { started_at: started, finished_at: new Date().toISOString() };
    if (tests.timedOut) {
      this.step('verify', 'error', 'timed out');
      throw new HudStudioError('harbor-verifier', `tests/test.sh timed out after ${task.config.verifier.timeoutSec} s ([verifier] timeout_sec); last lines:\n${lastLines(output.join(''), 20)}`, {
        hint: 'raise [verifier] timeout_sec or make the tests faster',
      });
    }
    this.step('verify', 'completed', `exit code ${tests.exitCode}`);
    this.step('grade', 'started');
    this.reward = await readReward(container, tests);
    const result = toGradeResult(this.reward);
    this.o.emit({ type: 'grade', phase: 'verifier', result, raw: this.reward.rewards, authoritative: true });
    this.step('grade', 'completed', `reward ${this.reward.reward} from ${this.reward.source}`);
    return result;
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

  private async copyArtifactsIn(container: ManagedContainer, collected: CollectedArtifact[]): Promise<void> {
    for (const a of collected) {
      if (a.hostPath) await copyInAs(container, a.hostPath, posix.normalize(a.source));
    }
    // /logs/agent and /logs/artifacts as the actor left them (never /logs/verifier).
    for (const [host, dest] of [[this.o.paths.agent, LOGS_AGENT], [join(this.staging(), 'logs-artifacts'), LOGS_ARTIFACTS]] as const) {
      await container.copyIn(host, dest);
    }
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

  private async healthcheck(main: ManagedContainer, config: EnvironmentConfig): Promise<void> {
    if (!config.healthcheck) return;
    const given: HealthcheckGiven = config.healthcheck;
    const hc = {
      command: given.command,
      interval_sec: given.interval_sec ?? HEALTH_DEFAULTS.interval_sec,
      timeout_sec: given.timeout_sec ?? HEALTH_DEFAULTS.timeout_sec,
      retries: given.retries ?? HEALTH_DEFAULTS.retries,
      start_period_sec: given.start_period_sec ?? HEALTH_DEFAULTS.start_period_sec,
    };
    if (hc.start_period_sec > 0) await sleep(hc.start_period_sec * 1000, this.o.signal);
    let last = '';
    for (let attempt = 0; attempt <= hc.retries; attempt++) {
      const r = await main.exec(['/bin/sh', '-c', hc.command], { timeoutMs: hc.timeout_sec * 1000, signal: this.o.signal });
      if (r.exitCode === 0) return;
      last = lastLines(`${r.stdout}\n${r.stderr}`, 5);
      await sleep(hc.interval_sec * 1000, this.o.signal);
    }
    throw new HudStudioError('harbor-config', `the environment never became healthy: \`${hc.command}\` failed ${hc.retries + 1} times${last ? `; last output:\n${last}` : ''}`, {
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
    return { status, result, error, reward: status === 'completed' ? this.reward : null, agentTimedOut: this.agentTimedOut, timings: this.timings };
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
