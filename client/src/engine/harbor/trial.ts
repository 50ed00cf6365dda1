/**
 * One Harbor trial (docs/harbor.md): start the environment, let the agent
 * work in its workdir, end the agent's sessions, run collect hooks and collect
 * artifacts, then verify on a clean /logs/verifier, either in the same
 * container (shared) or in a fresh one built from tests/ that only receives
 * the declared artifacts (separate). A multi-step task repeats agent and
 * verification per `[[steps]]` entry in the same environment. Every step is
 * an engine event, so the trace and the live views are the same as for env.py
 * rollouts.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { promptToText, type Agent, type AgentContext } from '../agents/agent';
import { Deadline } from '../deadline';
import type { ManagedContainer } from '../docker/types';
import { CancelledError, HudStudioError, TimeoutError, errorMessage } from '../errors';
import { PhaseFailure } from '../phaseFailure';
import type { RolloutEvent } from '../../../../common/events';
import type {
  ErrorPhase,
  GradeResult,
  LogStream,
  PhaseName,
  StepName,
  SubstrateInfo,
} from '../../../../common/trace/schema';
import {
  expandEnvTable,
  referencedVariables,
  type EnvironmentConfig,
  type HarborTask,
} from '../../../../common/harbor';
import {
  LOGS_AGENT,
  LOGS_ARTIFACTS,
  assertNoSymlinkBetween,
  collectDeclared,
  copyInAs,
  copyOutTo,
  type CollectedArtifact,
  type CopyOutResult,
} from './artifacts';
import { startEnvironment, type EnvironmentDefinition, type TrialEnvironment } from './environment';
import {
  baselinePolicy,
  describePolicy,
  phasePolicy,
  samePolicy,
  withExtraHosts,
  type ExtraHosts,
  type NetworkPolicy,
} from './network';
import { HarborTrialError, harborExceptionType } from './errors';
import { harborTaskIdentity, harborVerifierIdentity } from './identity';
import { parseRewardJson, toGradeResult, type HarborReward } from './reward';
import { OracleExitError } from './oracleAgent';
import { killNewProcesses, processSnapshot } from './sessions';
import { agentJobs, agentJobsWhy } from './agentJobs';
import { artifactShadowingWhy, type CopiedArtifact } from './artifactShadowing';
import { checkHarborAgentTurnEnd } from './agentTurnEnd';
import { reachableWhy, shadowingWhy, turnEndWarning } from '../providers/turnEndCheck';
import type { StoredArtifacts } from './storedArtifacts';
import {
  writeManifest,
  keepTrialFile,
  writeTrialText,
  type ExceptionInfo,
  type StepResultJson,
  type Timing,
  type TrialPaths,
} from './trialFolder';
import { jsonRewards } from './trialFolder';
import { collectVerifierLogs, lastLines, prepareLogDirs, resetVerifierState, runTests } from './verifier';
import {
  HEALTHCHECK_DEFAULTS,
  type ArtifactSpec,
  type CollectHook,
  type HarborStepConfig,
  type Healthcheck,
  type VerifierSettings,
} from '../../../../common/harbor';
import { DockerContainer } from '../docker/container';
import { streamLines } from '../output/streamLines';
import { BatchedFile } from '../output/batchedFile';

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
  /** Run a compose file whose services get the host (docker/composeHostAccess.ts). */
  allowServiceAccess: boolean;
  /** Hosts the run adds to the task's network policies (Harbor's run-time merge, network.ts). */
  extraHosts?: ExtraHosts;
  /** Overrides the environment's image (CLI --image); not for Compose tasks. */
  image?: string;
  /** A multi-step task's agent for one step (the oracle runs that step's solution). */
  agentForStep?: (step: string) => Agent;
  /** A regrade: no agent and no actor environment; the separate verifier checks these stored artifacts. */
  stored?: StoredArtifacts;
}

/** The host folders one pass writes into (the trial's own, or steps/<name>/ of a multi-step trial). */
interface PassDirs {
  agent: string;
  verifier: string;
  artifacts: string;
  manifest: string;
}

/** One agent-then-verify pass: the whole of a single-step trial, or one step of a multi-step trial. */
interface Pass {
  name: string | undefined;
  instruction: string;
  agent: Agent;
  agentTimeoutSec: number | undefined;
  agentUser: string | undefined;
  verifier: VerifierSettings;
  /** Task verifier.env merged with the step's. */
  verifierEnv: Record<string, string>;
  artifacts: ArtifactSpec[];
  collect: CollectHook[];
  /** Host folders uploaded to /tests, in order, for a shared verifier. */
  testsDirs: string[];
  /** Build context of a separate verifier. */
  verifierContext: string;
  dirs: PassDirs;
  /** The network its agent works under (agentNetwork): a step's own policy, else the task's. */
  agentNetwork: NetworkPolicy;
}

interface Actor {
  env: TrialEnvironment;
  main: ManagedContainer;
  workdir: string;
}

interface Acted {
  collected: CollectedArtifact[];
  /** Host copy of /logs/artifacts as the agent left it. */
  logsArtifacts: string;
  error: { type: string; message: string; at: string } | null;
  timedOut: boolean;
  exitCode: number | undefined;
  timing: Timing;
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
  /** Multi-step tasks: one entry per step that ran, as Harbor's step_results. */
  stepResults: StepResultJson[] | null;
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
  /**
   * Why a shared verifier's reward is forgeable though the agent is not root: its links could not be checked
   * (no python3), or it could put programs where the tests look them up (agentTurnEnd.ts).
   */
  private sharedForgeableWhy: string | undefined;
  private stepResults: StepResultJson[] | null = null;
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
    this.o.emit({
      type: 'rollout.started',
      task: identity,
      verifier: { ...harborVerifierIdentity(task), ref: `${this.o.ref}/tests/test.sh` },
    });
    try {
      const result = task.config.steps
        ? await this.runSteps(task.config.steps)
        : this.o.stored
          ? await this.verifyStored(this.o.stored)
          : await this.runSingle();
      this.endPhase('verifier', 'completed');
      return this.ending('completed', result, null);
    } catch (err) {
      const failure = this.classify(err);
      const reason: unknown = this.o.signal.aborted ? this.o.signal.reason : undefined;
      this.exception = {
        type:
          failure.status === 'cancelled'
            ? 'CancelledError'
            : harborExceptionType(
                err,
                this.stage === 'verifier' ? 'verifier' : this.stage === 'setup' ? 'setup' : 'actor',
                reason instanceof TimeoutError,
              ),
        message: failure.message,
        traceback: err instanceof Error && err.stack ? err.stack : String(err),
        at: new Date().toISOString(),
      };
      if (!this.o.stored) this.endPhase('actor', failure.status, failure.message);
      if (this.stage === 'verifier') this.endPhase('verifier', failure.status, failure.message);
      return this.ending(failure.status, null, {
        phase: failure.phase,
        message: failure.message,
        ...(failure.code ? { code: failure.code } : {}),
      });
    }
  }

  private async runSingle(): Promise<GradeResult> {
    const actor = await this.setupActor();
    const pass = this.singlePass();
    const acted = await this.act(pass, actor);
    this.agentTimedOut = acted.timedOut;
    this.agentError = acted.error;
    this.timings.agent_execution = acted.timing;
    const separate = pass.verifier.environmentMode === 'separate';
    const started = new Date().toISOString();
    if (separate) {
      this.step('teardown', 'started', 'stopping the actor environment');
      await this.teardown(actor.env);
      this.step('teardown', 'completed');
    }
    this.endPhase('actor', 'completed');
    this.phase = 'verifier';
    this.stage = 'verifier';
    if (!separate) this.startPhase('verifier', actor.env.substrate, true);
    try {
      this.reward = await this.verify(pass, actor, acted, true);
    } finally {
      this.timings.verifier = { started_at: started, finished_at: new Date().toISOString() };
    }
    return this.grade(this.reward);
  }

  /**
   * A regrade (docs/grader-workbench.md): the task's current separate
   * verifier, in a fresh container, on the artifacts a stored trial kept;
   * no agent and no actor environment.
   */
  private async verifyStored(stored: StoredArtifacts): Promise<GradeResult> {
    const pass = this.singlePass();
    this.phase = 'verifier';
    this.stage = 'verifier';
    const started = new Date().toISOString();
    const acted: Acted = {
      ...stored,
      error: null,
      timedOut: false,
      exitCode: undefined,
      timing: { started_at: started, finished_at: started },
    };
    try {
      this.reward = await this.verify(pass, undefined, acted, true);
    } finally {
      this.timings.verifier = { started_at: started, finished_at: new Date().toISOString() };
    }
    return this.grade(this.reward);
  }

  private singlePass(): Pass {
    const { task } = this.o;
    return {
      name: undefined,
      agentNetwork: this.agentNetwork(),
      instruction: task.instruction,
      agent: this.o.agent,
      agentTimeoutSec: task.config.agent.timeout_sec,
      agentUser: task.config.agent.user,
      verifier: task.config.verifier,
      verifierEnv: task.config.verifier.env,
      artifacts: task.config.artifacts,
      collect: task.config.verifier.collect,
      testsDirs: [join(task.dir, 'tests')],
      verifierContext: join(task.dir, 'tests'),
      dirs: {
        agent: this.o.paths.agent,
        verifier: this.o.paths.verifier,
        artifacts: this.o.paths.artifacts,
        manifest: this.o.paths.manifest,
      },
    };
  }

  /**
   * Harbor's multi-step trial: one environment; per step its workdir/ upload,
   * setup.sh and healthcheck, the agent on the step's instruction, artifacts
   * into steps/<name>/, and the step's verifier. A step without a reward, or
   * below its min_reward, ends the trial; the trial's rewards are the per-key
   * mean over the steps that have one (or the last step's, for "final").
   */
  private async runSteps(steps: HarborStepConfig[]): Promise<GradeResult> {
    const { task } = this.o;
    const actor = await this.setupActor();
    this.stepResults = [];
    const rewards: (Record<string, number> | null)[] = [];
    for (const [i, step] of steps.entries()) {
      const pass = this.stepPass(step, i);
      const result: StepResultJson = {
        step_name: step.name,
        agent_result: null,
        verifier_result: null,
        exception_info: null,
        agent_execution: null,
        verifier: null,
      };
      this.stepResults.push(result);
      this.log('engine', `step ${i + 1}/${steps.length}: ${step.name}`);
      const prepared = await this.prepareStep(step, actor, result);
      let reward: HarborReward | null = null;
      if (prepared) {
        const acted = await this.act(pass, actor);
        result.agent_execution = acted.timing;
        result.agent_result = { metadata: { hud_studio_agent: pass.agent.describe() } };
        if (acted.error) result.exception_info = exceptionFrom(acted.error.type, acted.error.message, acted.error.at);
        const separate = pass.verifier.environmentMode === 'separate';
        if (separate && i === steps.length - 1) await this.teardown(actor.env);
        const started = new Date().toISOString();
        this.stage = 'verifier';
        try {
          reward = await this.verify(pass, actor, acted, false);
          result.verifier_result = { rewards: jsonRewards(reward.rewards) };
        } catch (err) {
          if (this.o.signal.aborted || err instanceof CancelledError) throw err;
          this.warn(`step "${step.name}": verification failed: ${errorMessage(err)}`);
          result.exception_info ??= exceptionFrom(
            harborExceptionType(err, 'verifier', false),
            errorMessage(err),
            new Date().toISOString(),
            err,
          );
        } finally {
          this.stage = 'actor';
          result.verifier = { started_at: started, finished_at: new Date().toISOString() };
        }
      }
      rewards.push(reward ? reward.rewards : null);
      if (!reward && result.exception_info) {
        this.warn(`step "${step.name}" failed; the remaining steps are skipped`);
        break;
      }
      const below =
        reward && step.minReward !== undefined ? minRewardFailure(reward.rewards, step.minReward) : undefined;
      if (!reward || below) {
        if (below) this.warn(`step "${step.name}": ${below}; the remaining steps are skipped`);
        if (below) break;
      }
    }
    const final = aggregateStepRewards(rewards, task.config.multiStepRewardStrategy);
    this.endPhase('actor', 'completed');
    this.phase = 'verifier';
    this.stage = 'verifier';
    this.startPhase('verifier', actor.env.substrate, true);
    if (!final) {
      throw new HarborTrialError(
        'RewardFileNotFoundError',
        'harbor-verifier',
        `no step of this multi-step task produced a reward (${this.stepResults.length} of ${steps.length} step(s) ran)`,
        {
          hint: "see each step's verifier output under steps/<name>/verifier/ in the trial folder",
        },
      );
    }
    this.reward = final;
    return this.grade(final);
  }

  private grade(reward: HarborReward): GradeResult {
    if (reward.note) this.warn(reward.note);
    const result = toGradeResult(reward);
    this.o.emit({ type: 'grade', phase: 'verifier', result, raw: result.info, authoritative: true });
    this.step('grade', 'completed', `reward ${reward.reward} from ${reward.source}`);
    return result;
  }

  private stepPass(step: HarborStepConfig, index: number): Pass {
    const { task } = this.o;
    const stepDir = join(task.dir, 'steps', step.name);
    const root = join(this.o.paths.root, 'steps', step.name);
    const dirs: PassDirs = {
      agent: join(root, 'agent'),
      verifier: join(root, 'verifier'),
      artifacts: join(root, 'artifacts'),
      manifest: join(root, 'artifacts', 'manifest.json'),
    };
    for (const d of [dirs.agent, dirs.verifier, dirs.artifacts]) mkdirSync(d, { recursive: true });
    const stepTests = join(stepDir, 'tests');
    return {
      name: step.name,
      instruction: task.stepInstructions[index] ?? '',
      agent: this.o.agentForStep?.(step.name) ?? this.o.agent,
      agentTimeoutSec: step.agent.timeout_sec ?? task.config.agent.timeout_sec,
      agentUser: step.agent.user ?? task.config.agent.user,
      verifier: step.verifier,
      verifierEnv: { ...task.config.verifier.env, ...step.verifier.env },
      artifacts: [...task.config.artifacts, ...step.artifacts],
      collect: [...task.config.verifier.collect, ...step.verifier.collect],
      testsDirs: [join(task.dir, 'tests'), stepTests].filter((d) => existsSync(d)),
      verifierContext: existsSync(stepTests) ? stepTests : join(task.dir, 'tests'),
      dirs,
      agentNetwork: this.agentNetwork(step),
    };
  }

  /** A step's workdir/ upload, its setup.sh and its healthcheck; false (with the exception recorded) when one fails. */
  private async prepareStep(step: HarborStepConfig, actor: Actor, result: StepResultJson): Promise<boolean> {
    const user = step.agent.user ?? this.config.agent.user;
    await actor.main.exec(['/bin/sh', '-c', 'rm -rf /logs/agent/* /logs/agent/.[!.]* 2>/dev/null; true'], {
      user: 'root',
      timeoutMs: 60_000,
    });
    const upload = join(this.o.task.dir, 'steps', step.name, 'workdir');
    try {
      if (existsSync(upload)) {
        await actor.main.copyIn(upload, actor.workdir);
        if (existsSync(join(upload, 'setup.sh'))) {
          const r = await actor.main.exec(['bash', posix.join(actor.workdir, 'setup.sh')], {
            cwd: actor.workdir,
            signal: this.o.signal,
            ...(user ? { user } : {}),
          });
          if (r.exitCode !== 0)
            throw new HarborTrialError(
              'RuntimeError',
              'harbor-config',
              `step "${step.name}" setup.sh exited with code ${r.exitCode}: ${lastLines(r.stderr, 5)}`,
            );
        }
      }
      if (step.healthcheck) await this.healthcheck(actor.main, step.healthcheck);
      return true;
    } catch (err) {
      if (this.o.signal.aborted || err instanceof CancelledError) throw err;
      this.warn(`step "${step.name}" could not start: ${errorMessage(err)}`);
      result.exception_info = exceptionFrom(
        err instanceof HarborTrialError ? err.exceptionType : 'HealthcheckError',
        errorMessage(err),
        new Date().toISOString(),
        err,
      );
      return false;
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

  private async setupActor(): Promise<Actor> {
    const { task } = this.o;
    const setupStart = new Date().toISOString();
    this.step('setup', 'started');
    const envVars = this.expand(task.config.environment.env, 'environment.env');
    // Harbor's way to hand a task a key, and a dataset's way to collect one: say which of the user's go where the
    // agent can read them (docs/security.md, "Secrets").
    const fromHost = referencedVariables(task.config.environment.env).filter((v) => this.o.hostEnv[v] !== undefined);
    if (fromHost.length)
      this.log(
        'engine',
        `the agent's container gets the host's ${fromHost.join(', ')} ([environment] env): the agent can read ${fromHost.length > 1 ? 'them' : 'it'}`,
      );
    const definition: EnvironmentDefinition =
      task.environment.kind === 'compose'
        ? {
            kind: 'compose',
            composeFile: task.environment.composeFile,
            taskDir: task.dir,
            mainBase:
              'image' in task.environment.main
                ? task.environment.main
                : { context: '.', dockerfile: task.environment.main.dockerfile },
          }
        : this.o.image
          ? { kind: 'image', image: this.o.image }
          : task.environment.kind === 'image'
            ? { kind: 'image', image: task.environment.image }
            : { kind: 'dockerfile', contextDir: task.environment.contextDir, dockerfile: task.environment.dockerfile };
    if (this.o.image && task.environment.kind === 'compose')
      this.warn(`--image ${this.o.image} was ignored: this task's environment is a Compose project`);
    const env = await this.start({
      definition,
      config: task.config.environment,
      where: '[environment]',
      env: envVars,
      network: this.agentNetwork(),
    });
    this.startPhase('actor', env.substrate, false);
    this.stage = 'actor';
    const main = await env.service('main');
    await prepareLogDirs(main);
    if (task.config.environment.healthcheck) await this.healthcheck(main, task.config.environment.healthcheck);
    const workdir = task.config.environment.workdir ?? (await imageWorkdir(main));
    this.step('setup', 'completed');
    this.timings.environment_setup = { started_at: setupStart, finished_at: new Date().toISOString() };
    return { env, main, workdir };
  }

  /** The agent's turn, then its processes ended, collect hooks run and artifacts collected. */
  private async act(pass: Pass, actor: Actor): Promise<Acted> {
    const { main, env } = actor;
    // The agent's policy while it works, as Harbor's: a step's own, else the task's. A step's shared verifier
    // may have moved the container to its own network; the next agent gets its own back.
    const who = pass.name ? `step "${pass.name}": the agent` : 'the agent';
    const agentVars = await this.placeContainer(env, pass.agentNetwork, who);
    const before = await processSnapshot(main);
    const outcome = await this.runAgent(pass, main, actor.workdir, agentVars);
    this.step('teardown', 'started', 'ending agent sessions');
    await killNewProcesses(main, before);
    this.agentIsRoot = await this.runsAsRoot(main, pass.agentUser);
    // Before anything of the task's reads the agent's files, collect hooks included. A root agent's shared
    // reward is forgeable anyway (verify); a separate verifier gets no symlink.
    if (pass.verifier.environmentMode !== 'separate' && !this.agentIsRoot) {
      const checked = await checkHarborAgentTurnEnd(main, pass.agentUser, actor.workdir, this.o.rolloutId);
      if ('unchecked' in checked)
        this.sharedForgeableWhy = `the tests read the agent's files with their own rights, and the links it left could not be checked (${checked.unchecked}); a link to where the tests keep their expected values would pass them (use environment_mode = "separate", or add python3 to the image)`;
      else {
        const { check } = checked;
        const changed = turnEndWarning(check);
        if (changed) this.warn(changed);
        const why = [
          reachableWhy(check.reachable, "the container's PATH and PYTHONPATH"),
          shadowingWhy(check.shadowing, actor.workdir),
          agentJobsWhy(await agentJobs(main, agentUserIn(main, pass.agentUser))),
        ].filter(Boolean);
        if (why.length)
          this.sharedForgeableWhy = `${why.join('; ')}, and the tests run in its container (use environment_mode = "separate" for a reward the agent cannot touch)`;
      }
    }
    this.step('teardown', 'completed');

    this.step('collect', 'started');
    await this.runCollectHooks(env, pass);
    const collected = await collectDeclared(
      pass.artifacts,
      (s) => env.service(s),
      pass.dirs.artifacts,
      (m) => this.warn(m),
    );
    // /logs/artifacts is kept apart from the declared copies so a separate verifier gets exactly what the actor
    // left there.
    const logsArtifacts = join(this.staging(), `logs-artifacts-${pass.name ?? 'trial'}`);
    mkdirSync(logsArtifacts, { recursive: true });
    this.warnUncollected(LOGS_ARTIFACTS, await copyOutTo(main, LOGS_ARTIFACTS, logsArtifacts));
    const logsTarget = join(pass.dirs.artifacts, 'logs', 'artifacts');
    // A declared artifact may have put the agent's files at `logs` (`destination = "logs"`), a link among them.
    assertNoSymlinkBetween(pass.dirs.artifacts, logsTarget);
    cpSync(logsArtifacts, logsTarget, {
      recursive: true,
      force: true,
      verbatimSymlinks: true,
    });
    writeManifest(pass.dirs.manifest, [
      {
        source: LOGS_ARTIFACTS,
        destination: 'logs/artifacts',
        type: 'directory',
        status: readdirSync(logsArtifacts).length ? 'ok' : 'empty',
        service: null,
      },
      ...collected.map((c) => ({
        source: c.source,
        destination: c.destination,
        type: c.type,
        status: c.missing ? ('failed' as const) : ('ok' as const),
        service: c.service === 'main' ? null : c.service,
      })),
    ]);
    this.warnUncollected(LOGS_AGENT, await copyOutTo(main, LOGS_AGENT, pass.dirs.agent));
    if (outcome.exitCode !== undefined) writeTrialText(pass.dirs.agent, 'exit-code.txt', String(outcome.exitCode));
    this.step(
      'collect',
      'completed',
      `${collected.filter((c) => !c.missing).length}/${collected.length} declared artifact(s)`,
    );
    return { ...outcome, collected, logsArtifacts };
  }

  private warnUncollected(src: string, copied: CopyOutResult): void {
    if (copied.status === 'too-large') this.warn(`${src} was not collected: ${copied.why}`);
  }

  /** `networkVars`: what the agent's commands need on the network the container is on now (placeContainer). */
  private async runAgent(
    pass: Pass,
    main: ManagedContainer,
    workdir: string,
    networkVars: Record<string, string>,
  ): Promise<Omit<Acted, 'collected' | 'logsArtifacts'>> {
    const { agent } = pass;
    const timeoutSec = pass.agentTimeoutSec;
    const timeoutMs = timeoutSec !== undefined ? timeoutSec * 1000 : undefined;
    const deadline = new Deadline(`agent (timeout_sec = ${timeoutSec})`, this.o.signal, timeoutMs);
    const prompt = { prompt: pass.instruction };
    this.o.emit({ type: 'prompt', prompt });
    const started = new Date().toISOString();
    this.step('agent', 'started', `${pass.name ? `step ${pass.name}: ` : ''}${agent.describe()}`);
    // Kept whole in the trial folder as Harbor does, in bounded memory however much the agent prints.
    const output = new BatchedFile(join(pass.dirs.agent, `${agent.kind}.txt`), (why) =>
      this.warn(`the agent's output in the trial folder is incomplete: ${why}`),
    );
    let steps = 0;
    const user = pass.agentUser;
    const ctx: AgentContext = {
      prompt,
      promptText: promptToText(prompt),
      workspace: {
        exec: (argv, opts = {}) => {
          const asUser = opts.user ?? user;
          return main.exec(argv, {
            ...opts,
            ...(Object.keys(networkVars).length > 0 ? { env: { ...networkVars, ...opts.env } } : {}),
            ...(asUser ? { user: asUser } : {}),
            signal: opts.signal ?? deadline.signal,
          });
        },
        copyIn: (hostPath, dest) => main.copyIn(hostPath, dest),
        workdir,
        bindings: [],
      },
      signal: deadline.signal,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      log: (stream, text) => {
        output.write(text, '\n');
        this.log(stream, text);
      },
      step: (text, toolCalls = [], usage) =>
        this.o.emit({
          type: 'agent.step',
          index: steps++,
          ...(text !== undefined ? { text } : {}),
          toolCalls,
          ...(usage ? { usage } : {}),
        }),
    };
    let error: Acted['error'] = null;
    let timedOut = false;
    let exitCode: number | undefined;
    try {
      const answer = await agent.run(ctx);
      this.o.emit({ type: 'answer', answer });
      this.step('agent', 'completed');
    } catch (err) {
      if (this.o.signal.aborted) throw err;
      if (deadline.signal.reason instanceof TimeoutError) {
        timedOut = true;
        error = {
          type: 'AgentTimeoutError',
          message: `Agent execution timed out after ${timeoutSec} seconds`,
          at: new Date().toISOString(),
        };
        this.step('agent', 'error', `timed out after ${timeoutSec} s`);
        this.warn(
          `the agent timed out after ${timeoutSec} s ([agent] timeout_sec); verification still runs on what it left`,
        );
      } else {
        error = { type: agentErrorType(err), message: errorMessage(err), at: new Date().toISOString() };
        if (err instanceof OracleExitError) exitCode = err.exitCode;
        this.step('agent', 'error', errorMessage(err));
        this.warn(`the agent failed: ${errorMessage(err)}; verification still runs on what it left`);
      }
    } finally {
      deadline.dispose();
      output.close();
    }
    return { error, timedOut, exitCode, timing: { started_at: started, finished_at: new Date().toISOString() } };
  }

  private async runCollectHooks(env: TrialEnvironment, pass: Pass): Promise<void> {
    const hooks = pass.collect;
    for (const [i, hook] of hooks.entries()) {
      const container = await env.service(hook.service);
      const r = await container.exec(['/bin/sh', '-c', hook.command], {
        timeoutMs: hook.timeout_sec * 1000,
        signal: this.o.signal,
        ...(hook.user ? { user: hook.user } : {}),
      });
      if (this.o.signal.aborted) throw new CancelledError('collect hook');
      writeTrialText(
        pass.dirs.verifier,
        `collect-${i}-${hook.service}.log`,
        `$ ${hook.command}\n${r.stdout}${r.stderr ? `\n[stderr]\n${r.stderr}` : ''}`,
      );
      const what = `collect hook ${i} (${hook.service}: ${hook.command})`;
      if (r.timedOut) this.warn(`${what} timed out after ${hook.timeout_sec} s`);
      else if (r.exitCode !== 0) this.warn(`${what} exited with code ${r.exitCode}: ${lastLines(r.stderr, 3)}`);
      else this.log('engine', `${what} done`);
    }
  }

  // ------------------------------------------------------------- verifier

  /**
   * Verifies what the pass left: in the agent's container (shared) or in a
   * fresh one built from the pass's tests/ (separate), which gets only the
   * declared artifacts. `announce` starts the separate verifier's phase.
   */
  private async verify(pass: Pass, actor: Actor | undefined, acted: Acted, announce: boolean): Promise<HarborReward> {
    const settings = pass.verifier;
    const separate = settings.environmentMode === 'separate';
    const verifierVars = this.expandVerifierEnv(pass.verifierEnv, separate);
    let container: ManagedContainer;
    let cwd: string | undefined;
    let own: TrialEnvironment | undefined;
    let networkEnv: Record<string, string> = {};
    if (!separate) {
      if (!actor) {
        throw new HarborTrialError(
          'RuntimeError',
          'harbor-config',
          "a shared-mode verifier runs in the agent's container, and there is none to run it in",
          { hint: 'use environment_mode = "separate" to verify from the stored artifacts' },
        );
      }
      container = actor.main;
      cwd = actor.workdir;
      networkEnv = await this.sharedVerifierNetwork(settings, actor.env);
      if (this.agentIsRoot) {
        this.forgeable = true;
        this.warn(
          'this reward is forgeable: the agent ran as root in the container the shared verifier uses, so it controlled every program the tests ran (use environment_mode = "separate" for a reward the agent cannot touch)',
        );
      } else if (this.sharedForgeableWhy) {
        this.forgeable = true;
        this.warn(`this reward is forgeable: ${this.sharedForgeableWhy}`);
      }
    } else {
      this.step('setup', 'started', pass.name ? `separate verifier of step ${pass.name}` : 'separate verifier');
      // Without its own table, Harbor's separate verifier reuses the top-level [environment] (built from tests/).
      const venv = settings.environment!;
      own = await this.start({
        definition: venv.docker_image
          ? { kind: 'image', image: venv.docker_image }
          : { kind: 'dockerfile', contextDir: pass.verifierContext, dockerfile: 'Dockerfile' },
        config: venv,
        where: settings.environmentInherited
          ? '[environment] (inherited by the separate verifier)'
          : '[verifier.environment]',
        env: {
          ...this.expand(venv.env, settings.environmentInherited ? 'environment.env' : 'verifier.environment.env'),
          ...verifierVars,
        },
        network: this.verifierNetwork(settings, venv),
        ...(settings.user ? { user: settings.user } : {}),
      });
      if (announce) this.startPhase('verifier', own.substrate, false);
      container = await own.service('main');
      await prepareLogDirs(container);
      const artifacts = copiedArtifacts(acted);
      await this.copyArtifactsIn(container, artifacts);
      cwd = venv.workdir ?? (await imageWorkdir(container));
      const shadowed = await artifactShadowingWhy(container, cwd, artifacts);
      if (shadowed) {
        this.forgeable = true;
        this.warn(`this reward is forgeable: ${shadowed}`);
      }
      this.step('setup', 'completed');
    }
    try {
      this.step('verify', 'started', pass.name ? `step ${pass.name}` : undefined);
      // Shared: the task's tests are uploaded; separate: the verifier image owns /tests.
      await resetVerifierState(container, separate ? undefined : pass.testsDirs);
      const lines = streamLines((stream, line) => this.log(stream, line));
      const mergedOutput = join(this.staging(), `test-stdout-${pass.name ?? 'trial'}.txt`);
      const tests = await runTests(container, {
        env: separate ? {} : { ...verifierVars, ...networkEnv },
        timeoutMs: settings.timeoutSec * 1000,
        signal: this.o.signal,
        outputFile: mergedOutput,
        onOutputFileFailure: (why) => this.warn(`the tests' output in the trial folder is incomplete: ${why}`),
        ...(settings.user ? { user: settings.user } : {}),
        ...(cwd ? { cwd } : {}),
        onOutput: (stream, text) => lines.onOutput(stream, text),
      });
      lines.end();
      if (this.o.signal.aborted) throw new CancelledError('verifier');
      if (tests.timedOut) {
        this.keepTestOutput(mergedOutput, pass.dirs.verifier);
        this.step('verify', 'error', 'timed out');
        throw new HarborTrialError(
          'VerifierTimeoutError',
          'harbor-verifier',
          `tests/test.sh timed out after ${settings.timeoutSec} s ([verifier] timeout_sec); last lines:\n${lastLines(`${tests.stdout}\n${tests.stderr}`, 20)}`,
          {
            hint: 'raise [verifier] timeout_sec or make the tests faster',
          },
        );
      }
      this.step('verify', 'completed', `exit code ${tests.exitCode}`);
      this.step('grade', 'started');
      try {
        return await collectVerifierLogs(container, pass.dirs.verifier, tests, (m) => this.warn(m));
      } finally {
        this.keepTestOutput(mergedOutput, pass.dirs.verifier);
      }
    } finally {
      // A step's separate verifier goes as soon as its reward is read; the last one may stay for teardownAll.
      if (own && !announce) await this.teardown(own);
    }
  }

  /** Harbor keeps the test script's stdout and stderr merged, whole, in verifier/test-stdout.txt. */
  private keepTestOutput(staged: string, verifierDir: string): void {
    if (existsSync(staged)) keepTrialFile(staged, verifierDir, 'test-stdout.txt');
  }

  /** Whether the agent's commands run as root (the task's agent.user, else the image's user). */
  private async runsAsRoot(main: ManagedContainer, user: string | undefined): Promise<boolean> {
    return /^(|root|0)(:.*)?$/.test(agentUserIn(main, user));
  }

  /**
   * verifier.env: always for a separate verifier; in a shared container only literal values unless the user opted
   * in.
   */
  private expandVerifierEnv(table: Record<string, string>, separate: boolean): Record<string, string> {
    const all = this.expand(table, 'verifier.env');
    if (separate || this.o.allowSharedSecrets) {
      if (!separate && Object.keys(all).length)
        this.warn(
          `verifier.env (${Object.keys(all).join(', ')}) was passed to tests in the agent's container because shared secrets were allowed`,
        );
      return all;
    }
    const withheld = Object.keys(table).filter((k) => /\$\{/.test(table[k]!));
    for (const k of withheld) delete all[k];
    if (withheld.length) {
      this.warn(
        `verifier.env ${withheld.join(', ')} came from your environment and were NOT passed to the shared verifier (it runs in the agent's container); allow shared secrets to opt in, or use a separate verifier`,
      );
    }
    return all;
  }

  /**
   * What a separate verifier receives, as in Harbor: the declared artifacts
   * at their original paths and /logs/artifacts, never /logs/agent. No
   * symlink travels (docs/harbor.md, "What the agent cannot forge").
   */
  private async copyArtifactsIn(container: ManagedContainer, artifacts: readonly CopiedArtifact[]): Promise<void> {
    const dropped: string[] = [];
    for (const a of artifacts) dropped.push(...(await copyInAs(container, a.hostPath, a.containerPath)));
    if (dropped.length)
      this.warn(`symlinks among the artifacts were not copied into the verifier: ${dropped.slice(0, 10).join(', ')}`);
  }

  // ---------------------------------------------------------------- helpers

  /** Private host folder for copies that must not mix with the trial folder's. */
  private staging(): string {
    this.stagingDir ??= mkdtempSync(join(tmpdir(), 'hud-studio-trial-'));
    return this.stagingDir;
  }

  private async start(opts: {
    definition: EnvironmentDefinition;
    config: EnvironmentConfig;
    where: string;
    env: Record<string, string>;
    user?: string;
    network: NetworkPolicy;
  }): Promise<TrialEnvironment> {
    const env = await startEnvironment({
      ...opts,
      rolloutId: this.o.rolloutId,
      phase: this.phase,
      allowHostAccess: this.o.allowServiceAccess,
      signal: this.o.signal,
      log: (line) => this.log('engine', line),
    });
    this.environments.push(env);
    for (const w of env.warnings) this.warn(w);
    return env;
  }

  /** The environment's policy with the run's environment hosts (Harbor's baseline at the environment's start). */
  private environmentNetwork(config: EnvironmentConfig): NetworkPolicy {
    return withExtraHosts(
      baselinePolicy(config),
      this.o.extraHosts?.environment ?? [],
      '--allow-environment-host',
      (line) => this.warnOnce(line),
    );
  }

  /**
   * The agent's policy while it works, as Harbor's: a step's `[steps.agent]` policy, else the task's `[agent]`
   * policy, else the environment's; then the run's agent hosts. The agent's container starts with the task's.
   */
  private agentNetwork(step?: HarborStepConfig): NetworkPolicy {
    const { agent, environment } = this.o.task.config;
    const own =
      (step && phasePolicy(step.agent.network_mode, step.agent.allowed_hosts)) ??
      phasePolicy(agent.network_mode, agent.allowed_hosts) ??
      this.environmentNetwork(environment);
    return withExtraHosts(own, this.o.extraHosts?.agent ?? [], '--allow-agent-host', (line) => this.warnOnce(line));
  }

  /** A separate verifier's: its `[verifier]` policy, else its environment's (the run's hosts only when inherited). */
  private verifierNetwork(settings: VerifierSettings, venv: EnvironmentConfig): NetworkPolicy {
    return (
      phasePolicy(settings.networkMode, settings.allowedHosts) ??
      (settings.environmentInherited ? this.environmentNetwork(venv) : baselinePolicy(venv))
    );
  }

  /**
   * A shared verifier verifies under its own policy, as in Harbor: its `[verifier]` policy, else the
   * environment's (with the run's environment hosts). Returns the variables the tests need there.
   */
  private sharedVerifierNetwork(settings: VerifierSettings, env: TrialEnvironment): Promise<Record<string, string>> {
    const wanted =
      phasePolicy(settings.networkMode, settings.allowedHosts) ??
      this.environmentNetwork(this.o.task.config.environment);
    return this.placeContainer(
      env,
      wanted,
      'the shared verifier',
      ' (use environment_mode = "separate" for a verifier with its own)',
    );
  }

  /**
   * Puts the agent's container on `wanted`'s network for the phase `who` names, and returns the variables its
   * commands need there. The container was made with the task's agent policy; another policy moves it to that
   * policy's network (docker/containerNetwork.ts), and the task's brings it back. A Compose project keeps one
   * policy for its run: the phase runs under it, and the trial says so.
   */
  private async placeContainer(
    env: TrialEnvironment,
    wanted: NetworkPolicy,
    who: string,
    composeHint = '',
  ): Promise<Record<string, string>> {
    const made = this.agentNetwork();
    const now = this.movedTo ?? { policy: made, vars: {} };
    if (samePolicy(wanted, now.policy)) return now.vars;
    if (!env.setNetwork || !env.restoreNetwork) {
      this.warnOnce(
        `${who} ran under the task's agent policy, ${describePolicy(made)}, not its own, ${describePolicy(wanted)}: a Compose task keeps one policy for its project${composeHint}`,
      );
      return {};
    }
    if (samePolicy(wanted, made)) {
      await env.restoreNetwork();
      this.movedTo = undefined;
      return {};
    }
    this.log(
      'engine',
      `${who}'s network: ${describePolicy(wanted)} (the task's agent policy: ${describePolicy(made)})`,
    );
    const vars = await env.setNetwork(wanted);
    this.movedTo = { policy: wanted, vars };
    return vars;
  }

  /** Where placeContainer moved the agent's container, while it is not on the network it was made on. */
  private movedTo: { policy: NetworkPolicy; vars: Record<string, string> } | undefined;
  private readonly warned = new Set<string>();
  private warnOnce(line: string): void {
    if (!this.warned.has(line)) this.warn(line);
    this.warned.add(line);
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
      const r = await main.exec(['/bin/sh', '-c', hc.command], {
        timeoutMs: hc.timeout_sec * 1000,
        signal: this.o.signal,
      });
      if (this.o.signal.aborted) throw new CancelledError('healthcheck');
      if (r.exitCode === 0) return;
      last = lastLines(`${r.stdout}\n${r.stderr}`, 5);
      const inGrace = Date.now() < graceEnds;
      if (!inGrace && ++failures >= Math.max(1, hc.retries)) break;
      await sleep((inGrace ? hc.start_interval_sec : hc.interval_sec) * 1000, this.o.signal);
    }
    throw new HudStudioError(
      'harbor-config',
      `the environment never became healthy: \`${hc.command}\` failed ${failures} times in a row${last ? `; last output:\n${last}` : ''}`,
      {
        hint: 'fix [environment] healthcheck or what it checks',
      },
    );
  }

  private expand(table: Record<string, string>, key: string): Record<string, string> {
    const r = expandEnvTable(table, this.o.hostEnv);
    if (r.missing.length) {
      throw new HudStudioError(
        'harbor-config',
        `${key} uses ${r.missing.map((m) => `\${${m}}`).join(', ')}, which ${r.missing.length > 1 ? 'are' : 'is'} not set`,
        {
          location: { file: this.o.task.tomlPath, key },
          hint: `export ${r.missing[0]} before running, or write \${${r.missing[0]}:-default}`,
        },
      );
    }
    return r.env;
  }

  private classify(err: unknown): PhaseFailure {
    const reason: unknown = this.o.signal.aborted ? this.o.signal.reason : undefined;
    if (reason instanceof TimeoutError) return new PhaseFailure(this.stage, 'error', reason.message, 'timeout');
    if (this.o.signal.aborted || err instanceof CancelledError)
      return new PhaseFailure(this.stage, 'cancelled', 'rollout was cancelled', 'cancelled');
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
      stepResults: this.stepResults,
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

function exceptionFrom(type: string, message: string, at: string, err?: unknown): ExceptionInfo {
  return {
    exception_type: type,
    exception_message: message,
    exception_traceback: err instanceof Error && err.stack ? err.stack : message,
    occurred_at: at,
  };
}

/** Harbor's min_reward: a number gates "reward", a table gates each key; a missing key counts as -inf. */
export function minRewardFailure(
  rewards: Record<string, number>,
  min: number | Record<string, number>,
): string | undefined {
  const thresholds = typeof min === 'number' ? { reward: min } : min;
  for (const [key, threshold] of Object.entries(thresholds)) {
    const actual = rewards[key] ?? -Infinity;
    if (!(actual >= threshold)) return `${key}=${actual} is below min_reward ${threshold}`;
  }
  return undefined;
}

/** Per-key mean over the steps with rewards (missing keys count 0), or the last step's for "final". */
export function aggregateStepRewards(
  perStep: (Record<string, number> | null)[],
  strategy: 'mean' | 'final',
): HarborReward | null {
  let rewards: Record<string, number> | null;
  if (strategy === 'final') rewards = perStep[perStep.length - 1] ?? null;
  else {
    const valid = perStep.filter((r): r is Record<string, number> => r !== null);
    const keys = [...new Set(valid.flatMap((r) => Object.keys(r)))];
    rewards =
      valid.length && keys.length
        ? Object.fromEntries(keys.map((k) => [k, valid.reduce((sum, r) => sum + (r[k] ?? 0), 0) / valid.length]))
        : null;
  }
  if (!rewards) return null;
  // Non-finite means travel as the strings Python would accept back.
  return parseRewardJson(
    JSON.stringify(rewards, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v)),
  );
}

/** What a separate verifier gets of the pass: the declared artifacts at their own paths, and /logs/artifacts. */
function copiedArtifacts(acted: Acted): CopiedArtifact[] {
  const out: CopiedArtifact[] = [];
  for (const a of acted.collected)
    if (a.hostPath) out.push({ containerPath: posix.normalize(a.source), hostPath: a.hostPath });
  if (existsSync(acted.logsArtifacts)) out.push({ containerPath: LOGS_ARTIFACTS, hostPath: acted.logsArtifacts });
  return out;
}

/** Who the agent runs as: the task's `[agent] user`, else the container's user ('' when unknown: root). */
function agentUserIn(main: ManagedContainer, user: string | undefined): string {
  return user ?? (main instanceof DockerContainer ? main.user : '');
}

/** The folder a command runs in when the task names none: the image's WORKDIR, as an exec without one sees it. */
async function imageWorkdir(container: ManagedContainer): Promise<string> {
  return (await container.exec(['pwd'], { timeoutMs: 30_000 })).stdout.trim() || '/';
}
