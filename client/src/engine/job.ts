/**
 * A job (`hud-studio eval`): every task of the given files, N times each, at
 * most M at once, with progress events and a summary (mean reward, pass@k,
 * errors per phase, every run's trace) written beside the traces.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { discoverTasks, type DiscoveredTask } from './discover';
import { HudStudioError, UsageError, errorMessage } from './errors';
import { EventHub, now } from './events';
import type { Agent } from './agents/agent';
import { countTokens, summarizeModels, type ModelMatrix, type ModelSummary } from './jobModels';
import { mean, passAtK, passes } from './jobStats';
import { LocalProvider } from './providers/local';
import type { Provider } from './providers/provider';
import type { HarborRunRequest } from './runRequest';
import { runRollout, type RolloutOptions, type RolloutOutcome } from './rollout';
import { resolveTask, taskFileTarget } from './taskLoader';
import { splitTaskRef } from './taskRef';
import type { ErrorPhase, TokenUsage } from './trace/schema';
import { DEFAULT_TRACE_DIR, fileTimestamp, writeFileAtomic } from './trace/store';
import { isHarborTaskDir } from '../../../server/src/harbor/loadTask';

export const JOB_FILE_SUFFIX = '.hudjob.json';

export interface JobOptions extends Omit<RolloutOptions, 'ref' | 'task' | 'rolloutId' | 'jobId'> {
  /** `PATH` (every task of the file) or `PATH::REF` (one task). */
  paths: string[];
  group?: number;
  maxConcurrent?: number;
  /** A run passes when reward >= threshold (default 1.0). */
  threshold?: number;
  jobId?: string;
  onProgress?: (progress: JobProgress) => void;
  /** How to run Harbor task directories among `paths` (the CLI's agent/runtime flags as typed). */
  harbor?: Pick<HarborRunRequest, 'agent' | 'answer' | 'command' | 'runtime' | 'image' | 'notice' | 'allowSharedSecrets'>;
  /** Evaluate across models: every task runs `group` times per model, each with that model's agent (not `agent`). */
  models?: { name: string; agent: Agent }[];
}

/** One entry of the run queue: a discovered env.py task, or a Harbor task directory. */
type QueuedTask = { kind: 'hud'; ref: string; task: DiscoveredTask } | { kind: 'harbor'; ref: string; dir: string };
type QueuedRun = { task: QueuedTask; model: { name: string; agent: Agent } | undefined };

export function isHarborDir(pathOrRef: string, cwd: string): boolean {
  return splitTaskRef(pathOrRef).selector === undefined && isHarborTaskDir(resolve(cwd, pathOrRef));
}

export interface JobProgress {
  total: number;
  done: number;
  running: number;
  completed: number;
  errored: number;
  cancelled: number;
  passed: number;
}

export interface JobRun {
  rolloutId: string;
  status: RolloutOutcome['status'];
  reward: number | null;
  error: RolloutOutcome['error'];
  trace: string | undefined;
  /** The model that acted, in a job across models. */
  model?: string;
  tokens?: TokenUsage;
  startedAt?: string;
  endedAt?: string;
}

export interface JobTaskSummary {
  ref: string;
  model?: string;
  runs: JobRun[];
  meanReward: number | null;
  passed: number;
  passAt1: number;
  passAtK: number;
}

export interface JobSummary {
  jobId: string;
  startedAt: string;
  endedAt: string;
  durationMs: number;
  group: number;
  threshold: number;
  /** k of pass@k (the group size). */
  k: number;
  total: number;
  completed: number;
  errored: number;
  cancelled: number;
  /** Over every run that ran; an errored or cancelled run counts as 0. */
  meanReward: number | null;
  /** Mean over tasks. */
  passAt1: number | null;
  passAtK: number | null;
  errorsByPhase: Record<ErrorPhase, number>;
  tasks: JobTaskSummary[];
  /** Files that could not be loaded (the rest of the job still ran). */
  loadErrors: { path: string; message: string }[];
  traces: string[];
  summaryPath: string | undefined;
  /** A job across models: per-model figures and the task x model matrix. */
  models?: ModelSummary[];
  matrix?: ModelMatrix;
}

export async function runJob(opts: JobOptions): Promise<JobSummary> {
  const jobId = opts.jobId ?? randomUUID();
  const cwd = opts.cwd ?? process.cwd();
  const group = Math.max(1, Math.floor(opts.group ?? 1));
  const maxConcurrent = Math.max(1, Math.floor(opts.maxConcurrent ?? 1));
  const threshold = opts.threshold ?? 1.0;
  const hub = opts.hub ?? new EventHub();
  const startedAt = now();
  if (opts.paths.length === 0) throw new UsageError('eval needs at least one PATH');

  const loadErrors: JobSummary['loadErrors'] = [];
  const tasks: QueuedTask[] = [];
  for (const path of opts.paths) {
    if (opts.signal?.aborted) break;
    if (isHarborDir(path, cwd)) {
      if (!opts.harbor) throw new UsageError(`${path} is a Harbor task directory; this job was not given how to run Harbor tasks`);
      tasks.push({ kind: 'harbor', ref: path, dir: resolve(cwd, path) });
      continue;
    }
    try {
      tasks.push(...(await loadTasks(path, cwd, opts.provider, opts.signal, opts.module)).map((task) => ({ kind: 'hud' as const, ref: task.ref, task })));
    } catch (err) {
      if (err instanceof UsageError) throw err;
      loadErrors.push({ path, message: errorMessage(err) });
    }
  }

  const models = opts.models?.length ? opts.models : [undefined];
  const keyOf = (ref: string, model: string | undefined): string => (model === undefined ? ref : `${model}\u0000${ref}`);
  const queue: QueuedRun[] = tasks.flatMap((task) => models.flatMap((model) => Array.from({ length: group }, () => ({ task, model }))));
  const byRef = new Map<string, { ref: string; model: string | undefined; runs: JobRun[] }>(
    tasks.flatMap((t) => models.map((m) => [keyOf(t.ref, m?.name), { ref: t.ref, model: m?.name, runs: [] }] as const)),
  );
  const tokens = countTokens(hub);
  const progress: JobProgress = { total: queue.length, done: 0, running: 0, completed: 0, errored: 0, cancelled: 0, passed: 0 };
  const report = (): void => opts.onProgress?.({ ...progress });
  report();

  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < queue.length && !opts.signal?.aborted) {
      const { task, model } = queue[next++]!;
      progress.running++;
      report();
      let outcome: RolloutOutcome;
      const runStartedAt = now();
      try {
        outcome = await runOne(task, model ? { ...opts, agent: model.agent } : opts, hub, jobId, cwd);
      } catch (err) {
        // A task that cannot even be loaded (e.g. a broken task.toml) is reported once; the job goes on.
        if (err instanceof UsageError) throw err;
        progress.running--;
        progress.done++;
        progress.errored++;
        if (!loadErrors.some((e) => e.path === task.ref)) loadErrors.push({ path: task.ref, message: errorMessage(err) });
        report();
        continue;
      }
      progress.running--;
      progress.done++;
      if (outcome.status === 'completed') progress.completed++;
      else if (outcome.status === 'error') progress.errored++;
      else progress.cancelled++;
      if (passes(outcome, threshold)) progress.passed++;
      const used = tokens.of(outcome.rolloutId);
      byRef.get(keyOf(task.ref, model?.name))!.runs.push({
        rolloutId: outcome.rolloutId,
        status: outcome.status,
        reward: outcome.reward,
        error: outcome.error,
        trace: outcome.tracePath,
        ...(model ? { model: model.name, startedAt: runStartedAt, endedAt: now() } : {}),
        ...(used ? { tokens: used } : {}),
      });
      report();
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(maxConcurrent, Math.max(1, queue.length)) }, worker));
  } finally {
    tokens.dispose();
  }

  const taskSummaries: JobTaskSummary[] = [...byRef.values()].map(({ ref, model, runs }) => {
    const passed = runs.filter((r) => passes(r, threshold)).length;
    return {
      ref,
      ...(model === undefined ? {} : { model }),
      runs,
      meanReward: mean(runs.map((r) => r.reward ?? 0)),
      passed,
      passAt1: passAtK(runs.length, passed, 1),
      passAtK: passAtK(runs.length, passed, group),
    };
  });
  const runs = taskSummaries.flatMap((t) => t.runs);
  const ran = taskSummaries.filter((t) => t.runs.length > 0);
  const errorsByPhase: Record<ErrorPhase, number> = { setup: loadErrors.length, actor: 0, verifier: 0 };
  for (const r of runs) if (r.status === 'error' && r.error) errorsByPhase[r.error.phase]++;
  const endedAt = now();
  const summary: JobSummary = {
    jobId,
    startedAt,
    endedAt,
    durationMs: Date.parse(endedAt) - Date.parse(startedAt),
    group,
    threshold,
    k: group,
    total: runs.length,
    completed: runs.filter((r) => r.status === 'completed').length,
    errored: runs.filter((r) => r.status === 'error').length,
    cancelled: runs.filter((r) => r.status === 'cancelled').length,
    meanReward: mean(runs.map((r) => r.reward ?? 0)),
    passAt1: mean(ran.map((t) => t.passAt1)),
    passAtK: mean(ran.map((t) => t.passAtK)),
    errorsByPhase,
    tasks: taskSummaries,
    loadErrors,
    traces: runs.flatMap((r) => (r.trace ? [r.trace] : [])),
    summaryPath: undefined,
    ...(opts.models?.length ? summarizeModels(taskSummaries, opts.models.map((m) => m.name), threshold, group) : {}),
  };
  if (opts.traceDir !== null) {
    const dir = resolve(cwd, opts.traceDir ?? DEFAULT_TRACE_DIR);
    try {
      mkdirSync(dir, { recursive: true });
      summary.summaryPath = join(dir, `${fileTimestamp(startedAt)}-job-${jobId.slice(0, 8)}${JOB_FILE_SUFFIX}`);
      writeFileAtomic(summary.summaryPath, `${JSON.stringify(summary, null, 2)}\n`);
    } catch (err) {
      summary.summaryPath = undefined;
      throw new HudStudioError('trace', `cannot write the job summary into ${dir}: ${(err as Error).message}`, { cause: err });
    }
  }
  return summary;
}

async function runOne(task: QueuedTask, opts: JobOptions, hub: EventHub, jobId: string, cwd: string): Promise<RolloutOutcome> {
  if (task.kind === 'hud') return runRollout({ ...opts, hub, jobId, ref: task.ref, task: task.task, cwd });
  const { runHarborTask } = await import('./harbor/run');
  return runHarborTask({
    ...opts.harbor!,
    taskDir: task.dir,
    cwd,
    traceDir: opts.traceDir ?? undefined,
    timeoutMs: opts.timeouts?.rolloutMs,
    signal: opts.signal ?? new AbortController().signal,
    hub,
    jobId,
  });
}

/** Discovers the tasks of one `PATH[::REF]` in a throw-away substrate of the provider (Local for borrowed servers). */
export async function loadTasks(pathOrRef: string, cwd: string, provider: Provider, signal?: AbortSignal, module?: string): Promise<DiscoveredTask[]> {
  const target = taskFileTarget(pathOrRef, cwd, module);
  const where = provider.kind === 'url' ? new LocalProvider() : provider;
  const substrate = await where.acquire(
    { envFile: target.envFile, envDir: target.envDir, runtimeConfig: null },
    { rolloutId: `discover-${randomUUID()}`, phase: 'actor', ...(signal ? { signal } : {}), log: () => undefined },
  );
  try {
    const tasks = await discoverTasks(substrate, {
      displayPath: target.displayPath,
      hostDir: target.envDir,
      file: `${substrate.workdir}/${relative(target.envDir, target.file)}`,
      ...(target.file !== target.envFile ? { module: substrate.envPath } : {}),
      ...(signal ? { signal } : {}),
    });
    // resolveTask also rejects a file without tasks, which would otherwise vanish from the job.
    if (target.selector === undefined) return tasks.length ? tasks : [resolveTask(tasks, target)];
    return [resolveTask(tasks, target)];
  } finally {
    await substrate.release();
  }
}
