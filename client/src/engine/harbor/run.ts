/**
 * Entry point for Harbor task directories (lazily imported by the CLI and
 * the extension): load and check task.toml, run one trial on Docker, write
 * our trace plus a Harbor-style trial folder next to it, and resolve with the
 * same RolloutOutcome as an env.py rollout.
 */
import { readdirSync, rmdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { dockerHost } from '../docker/client';
import { Deadline } from '../deadline';
import { HudStudioError, UsageError, errorMessage } from '../errors';
import { EventHub, now } from '../../../../common/events';
import { finishedRollout, type FinishedRollout } from '../outcome';
import type { HarborRunRequest } from '../runRequest';
import { TraceRecorder, type RolloutEventInput } from '../trace/builder';
import { DEFAULT_TRACE_DIR } from '../trace/store';
import {
  loadHarborTask,
  type HarborTask,
  type HarborTomlIssue,
  type LoadHarborTaskResult,
} from '../../../../common/harbor';
import { copyStoredArtifacts, readStoredManifest, type StoredManifest } from './storedArtifacts';
import { createHarborAgent } from './agents';
import { HarborTrial } from './trial';
import { version } from '../../cli/version';
import { harborChecksum } from './checksum';
import { harborJobDir, writeHarborJobResult } from './jobFolder';
import type { TrialEnding } from './trial';
import {
  appendTrialLog,
  createTrialFolder,
  jsonRewards,
  trialName,
  trialUri,
  uuidOrNull,
  writeTrialResult,
  type ExceptionInfo,
} from './trialFolder';

export type { HarborRunRequest } from '../runRequest';

/** Extra knobs only tests set. */
export interface HarborRunExtras {
  /** Where the trial folder goes; default the job's Harbor folder, else `<trace dir>/trials`. */
  trialsDir?: string;
  /** `${VAR}` source; default process.env. */
  hostEnv?: Readonly<Record<string, string | undefined>>;
}

export async function runHarborTask(
  req: HarborRunRequest & HarborRunExtras,
): Promise<FinishedRollout & { trialDir: string }> {
  if (req.runtime !== 'auto' && req.runtime !== 'docker') {
    throw new UsageError(`Harbor tasks run in Docker; --runtime ${req.runtime} cannot run them`, {
      hint: 'drop --runtime or use --runtime docker',
    });
  }
  const loaded = loadHarborTask(req.taskDir);
  if (!loaded.ok) throw harborLoadError(loaded);
  const task = loaded.task;
  for (const w of task.warnings) req.notice(`${task.tomlPath}:${w.line}:${w.column}: warning: ${w.message}`);

  const choice = {
    ...(req.agent ? { agent: req.agent } : {}),
    ...(req.answer !== undefined ? { answer: req.answer } : {}),
    ...(req.command !== undefined ? { command: req.command } : {}),
    ...(req.solution !== undefined ? { solution: req.solution } : {}),
  };
  const manifest = req.stored ? storedManifestOf(task, req.stored.trialDir) : undefined;
  const agent = req.stored?.agent ?? createHarborAgent(choice, task);
  const ref = relative(req.cwd, task.dir).split('\\').join('/') || '.';
  const traceDir = resolve(req.cwd, req.traceDir ?? DEFAULT_TRACE_DIR);
  const recorder = new TraceRecorder(
    {
      ...(req.rolloutId ? { rolloutId: req.rolloutId } : {}),
      ...(req.jobId ? { jobId: req.jobId } : {}),
      taskRef: ref,
      agent: { kind: agent.kind, detail: agent.describe() },
      provider: { kind: 'docker', dockerHost: req.dockerHost ?? dockerHost() },
      traceDir,
    },
    req.hub ?? new EventHub(),
  );
  const { rolloutId } = recorder;

  const name = trialName(task.name, rolloutId);
  // A job's trials share Harbor's job folder, whose result.json is rewritten as each trial ends.
  const jobDir = req.jobId ? harborJobDir(traceDir, req.jobId) : undefined;
  const trialsDir = req.trialsDir ?? jobDir ?? join(traceDir, 'trials');
  const paths = createTrialFolder(trialsDir, name);
  const stored = manifest ? copyStoredArtifacts(manifest, paths.artifacts) : undefined;
  const emit = (e: RolloutEventInput): void => {
    recorder.emit(e);
    const line = trialLogLine(e);
    if (line) appendTrialLog(paths, line);
  };
  const deadline = new Deadline('Harbor trial', req.signal, req.timeoutMs);
  const trial = new HarborTrial({
    task,
    ref,
    agent,
    rolloutId,
    paths,
    signal: deadline.signal,
    emit,
    hostEnv: req.hostEnv ?? process.env,
    allowSharedSecrets: req.allowSharedSecrets ?? false,
    allowServiceAccess: req.allowServiceAccess ?? false,
    ...(req.extraHosts ? { extraHosts: req.extraHosts } : {}),
    agentForStep: (step) => createHarborAgent(choice, task, step),
    ...(req.image ? { image: req.image } : {}),
    ...(stored ? { stored } : {}),
  });
  const startedAt = now();
  let ending;
  try {
    ending = await trial.execute();
  } finally {
    await trial.teardownAll();
    deadline.dispose();
  }

  if (ending.stepResults) removeEmptyDirs([paths.agent, paths.verifier, paths.artifacts]);
  const endedAt = now();
  const harbor = {
    trialDir: paths.root,
    rewards: Object.fromEntries(Object.entries(ending.reward?.rewards ?? {}).filter(([, v]) => Number.isFinite(v))),
    environmentMode: task.config.verifier.environmentMode,
    agentTimedOut: ending.agentTimedOut,
    ...(ending.forgeable ? { forgeable: true } : {}),
  };
  const recorded = recorder.end(
    { status: ending.status, result: ending.result, error: ending.error, harbor },
    true,
    (trace, tracePath) => {
      writeTrialResult(paths, {
        id: rolloutId,
        task_name: task.name,
        trial_name: name,
        trial_uri: trialUri(paths),
        task_id: { path: task.dir },
        source: task.config.source ?? null,
        task_checksum: checksumOf(task.dir),
        config: {
          task: { path: task.dir, source: task.config.source ?? null },
          trial_name: name,
          trials_dir: trialsDir,
          timeout_multiplier: 1,
          agent: { name: agent.kind, override_timeout_sec: null, kwargs: {}, env: {} },
          environment: { type: 'docker', force_build: false, delete: true, env: {}, kwargs: {} },
          verifier: { env: {}, disable: false },
          artifacts: [],
          job_id: uuidOrNull(req.jobId),
        },
        agent_info: { name: agent.kind, version: version(), model_info: null },
        agent_result: ending.stepResults ? null : { metadata: { hud_studio_agent: agent.describe() } },
        verifier_result: ending.reward ? { rewards: jsonRewards(ending.reward.rewards) } : null,
        exception_info: exceptionInfo(ending),
        started_at: startedAt,
        finished_at: endedAt,
        environment_setup: ending.timings.environment_setup,
        agent_setup: null,
        agent_execution: ending.stepResults ? null : ending.timings.agent_execution,
        verifier: ending.timings.verifier,
        step_results: ending.stepResults,
        hud_studio: {
          rollout_id: rolloutId,
          status: ending.status,
          reward: ending.status === 'completed' ? (ending.result?.reward ?? null) : null,
          environment_mode: task.config.verifier.environmentMode,
          agent_timed_out: ending.agentTimedOut,
          forgeable: ending.forgeable,
          trace_path: tracePath,
          warnings: trace.warnings,
        },
      });
    },
  );
  if (jobDir && req.jobId && !req.trialsDir) {
    try {
      writeHarborJobResult(jobDir, { id: req.jobId, startedAt, finishedAt: endedAt, totalTrials: 0 });
    } catch (err) {
      recorder.emit({
        type: 'warning',
        message: `the Harbor job folder's result.json could not be written: ${errorMessage(err)}`,
      });
    }
  }
  return { ...finishedRollout(rolloutId, ending, recorded), trialDir: paths.root };
}

/**
 * What a regrade verifies, or a clear error when the task cannot be verified
 * from stored artifacts: a shared verifier needs the agent's container and a
 * multi-step trial its environment as each step left it; neither was kept.
 */
function storedManifestOf(task: HarborTask, trialDir: string): StoredManifest {
  if (task.config.steps) {
    throw new UsageError(
      `${task.dir} is a multi-step task: its steps share one environment, whose state between steps was not kept, so it cannot be regraded from stored artifacts`,
    );
  }
  if (task.config.verifier.environmentMode !== 'separate') {
    throw new UsageError(
      `${task.tomlPath}: the verifier runs in shared mode, inside the agent's container, whose state was not kept; only a separate verifier can be regraded from stored artifacts`,
      { hint: 'set environment_mode = "separate" under [verifier] (its tests then get only the declared artifacts)' },
    );
  }
  return readStoredManifest(trialDir);
}

/** The loader's issues as one typed error: the first locates it, the rest are listed. */
export function harborLoadError(result: Extract<LoadHarborTaskResult, { ok: false }>): HudStudioError {
  const [first, ...rest] = result.errors as [HarborTomlIssue, ...HarborTomlIssue[]];
  const { message, hint } = splitFix(first.message);
  const more = rest.map((e) => `\n  ${result.tomlPath}:${e.line}:${e.column}: ${e.message}`).join('');
  return new HudStudioError('harbor-config', `${message}${more}`, {
    location: {
      file: result.tomlPath,
      line: first.line,
      column: first.column,
      ...(first.key ? { key: first.key } : {}),
    },
    ...(hint ? { hint } : {}),
  });
}

function splitFix(text: string): { message: string; hint: string | undefined } {
  const m = /^([\s\S]*?)\s*\(fix:?\s*([\s\S]*)\)$/.exec(text);
  return m ? { message: m[1]!, hint: m[2]! } : { message: text, hint: undefined };
}

/** Harbor's checksum; a task it cannot hash (a symlink cycle) still runs, with the reason recorded. */
function checksumOf(dir: string): string {
  try {
    return harborChecksum(dir);
  } catch (err) {
    return `unavailable: ${errorMessage(err)}`;
  }
}

function exceptionInfo(ending: TrialEnding): ExceptionInfo | null {
  const e =
    ending.exception ?? (ending.agentError ? { ...ending.agentError, traceback: ending.agentError.message } : null);
  if (!e) return null;
  return { exception_type: e.type, exception_message: e.message, exception_traceback: e.traceback, occurred_at: e.at };
}

/** What trial.log keeps of an event (the trace keeps everything). */
function trialLogLine(e: RolloutEventInput): string | undefined {
  switch (e.type) {
    case 'log':
      return `[${e.phase ?? 'trial'}] ${e.stream}: ${e.text}`;
    case 'warning':
      return `WARNING ${e.message}`;
    case 'step':
      return `[${e.phase}] ${e.step} ${e.status}${e.detail ? `: ${e.detail}` : ''}`;
    case 'phase.started':
    case 'phase.ended':
      return `${e.type} ${e.phase}`;
    default:
      return undefined;
  }
}

/** A multi-step trial keeps its outputs under steps/<name>/; like Harbor, it drops the unused root folders. */
function removeEmptyDirs(dirs: string[]): void {
  for (const d of dirs) {
    try {
      if (readdirSync(d).length === 0) rmdirSync(d);
    } catch {
      // Already gone or not empty: nothing to tidy.
    }
  }
}
