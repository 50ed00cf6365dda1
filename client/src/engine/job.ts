/**
 * The worker pool of every batch of rollouts (`hud-studio eval`, the
 * editor's batch runs): each item N times, at most M at once, through
 * {@link runTask}; a `job.started` event on the hub, progress, and a summary
 * (mean reward, pass@k, errors per phase, every run's trace) written beside
 * the traces as `*.hudjob.json`. {@link planJob} turns the CLI's paths into
 * items by discovering each file once. See `docs/engine.md`.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { harborDatasetTasks } from '../../../common/harbor/loadTask';
import { BackgroundWork } from './backgroundWork';
import { discoverTasks, type DiscoveredTask } from './discover';
import { HudStudioError, UsageError, errorMessage, fixOf } from './errors';
import { EventHub, now } from '../../../common/events';
import { countTokens, summarizeModels, type ModelMatrix, type ModelSummary } from './jobModels';
import { countRuns, mean, passAtK, passes, type RunTotals } from './jobStats';
import type { RolloutOutcome } from './outcome';
import { LocalProvider } from './providers/local';
import type { Provider } from './providers/provider';
import type { SelectedProvider } from './providers/select';
import type { RunContext, TaskRunRequest } from './runRequest';
import { runTask } from './runTask';
import { isHarborDir, resolveTask, taskFileTarget } from './taskLoader';
import type { TokenUsage, Trace } from '../../../common/trace/schema';
import { fileTimestamp, writeFileAtomic } from './trace/store';

export const JOB_FILE_SUFFIX = '.hudjob.json';

/** One task of a job: the request that runs it, and its discovered row when the plan already read it. */
export interface JobItem {
  request: TaskRunRequest;
  task?: DiscoveredTask;
  /** The model acting in this item, in an eval across models (docs/models.md). */
  model?: string;
}

export interface JobRequest {
  /** What a view calls the job ("eval env.py", "Run all tasks"). */
  label: string;
  items: JobItem[];
  /** Runs per item (default 1); pass@k uses k = group. */
  group?: number;
  /** Rollouts at once (default 1). */
  maxConcurrent?: number;
  /** A run passes when reward >= threshold (default 1.0). */
  threshold?: number;
  /** The runtime picked once for every run. */
  selected: SelectedProvider;
  /** Folder of the `*.hudjob.json` summary; null writes none. */
  summaryDir: string | null;
  /** Files the plan could not load (the job still runs the rest); they count as setup errors. */
  loadErrors?: JobSummary['loadErrors'];
  jobId?: string;
  hub?: EventHub;
  signal?: AbortSignal;
  notice?: (line: string) => void;
  onProgress?: (progress: JobProgress) => void;
  /**
   * Every run's id, before its first event: a caller follows a run's events
   * by it, since two items may share a reference (two workspace folders
   * that each hold an env.py) and a group runs an item several times.
   */
  onRunStarting?: (item: JobItem, rolloutId: string) => void;
  /** Every run's end; `trace` is undefined when the run failed before a rollout could start. */
  onRunEnded?: (item: JobItem, outcome: RolloutOutcome, trace: Trace | undefined) => void;
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
  /** A run the job was cancelled before it could start. */
  notStarted?: true;
  /** Why this run's trace could not be written. */
  traceError?: string;
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

/** A job's figures; `meanReward` is over every run that ran. */
export interface JobSummary extends RunTotals {
  jobId: string;
  label: string;
  startedAt: string;
  endedAt: string;
  durationMs: number;
  group: number;
  threshold: number;
  /** k of pass@k (the group size). */
  k: number;
  total: number;
  tasks: JobTaskSummary[];
  /** Files (or tasks) that could not be loaded; the rest of the job still ran. */
  loadErrors: { path: string; message: string }[];
  traces: string[];
  /** Runs whose trace could not be written. */
  traceErrors: number;
  summaryPath: string | undefined;
  /** Why the summary file could not be written (the summary itself still holds). */
  summaryError?: string;
  /** A job across models: per-model figures and the task x model matrix. */
  models?: ModelSummary[];
  matrix?: ModelMatrix;
}

export async function runJob(job: JobRequest): Promise<JobSummary> {
  const jobId = job.jobId ?? randomUUID();
  const group = Math.max(1, Math.floor(job.group ?? 1));
  const maxConcurrent = Math.max(1, Math.floor(job.maxConcurrent ?? 1));
  const threshold = job.threshold ?? 1.0;
  const hub = job.hub ?? new EventHub();
  const startedAt = now();
  const loadErrors = [...(job.loadErrors ?? [])];

  const queue = job.items.flatMap((item) => Array.from({ length: group }, () => item));
  const byRef = new Map<string, JobRun[]>(job.items.map((item) => [keyOf(item), []]));
  const cells = new Map(job.items.map((item) => [keyOf(item), { ref: refOf(item), model: item.model }]));
  const tokens = countTokens(hub);
  const progress: JobProgress = {
    total: queue.length,
    done: 0,
    running: 0,
    completed: 0,
    errored: 0,
    cancelled: 0,
    passed: 0,
  };
  const report = (): void => job.onProgress?.({ ...progress });
  hub.emit({ type: 'job.started', jobId, label: job.label, total: queue.length, at: startedAt });
  report();

  // A run's container goes while the next run starts; the job is not over until every one has gone.
  const removals = new BackgroundWork((err) => job.notice?.(`warning: ${errorMessage(err)}`));
  const removeLater = (removal: Promise<void>): void => removals.add(removal);

  let next = 0;
  const worker = async (): Promise<void> => {
    // `next` counts only runs that start: what a Ctrl-C leaves behind is counted below.
    while (next < queue.length && !job.signal?.aborted) {
      const item = queue[next++]!;
      progress.running++;
      report();
      const runStartedAt = now();
      const rolloutId = randomUUID();
      job.onRunStarting?.(item, rolloutId);
      const ended = await runItem(item, job, hub, { jobId, rolloutId, removeLater });
      progress.running--;
      progress.done++;
      if (ended.outcome.status === 'completed') progress.completed++;
      else if (ended.outcome.status === 'error') progress.errored++;
      else progress.cancelled++;
      if (passes(ended.outcome, threshold)) progress.passed++;
      if (ended.trace) {
        const o = ended.outcome;
        const lost = o.traceError ? { traceError: o.traceError } : {};
        const used = tokens.of(o.rolloutId);
        const model = item.model === undefined ? {} : { model: item.model, startedAt: runStartedAt, endedAt: now() };
        const run = {
          rolloutId: o.rolloutId,
          status: o.status,
          reward: o.reward,
          error: o.error,
          trace: o.tracePath,
          ...lost,
        };
        byRef.get(keyOf(item))?.push({ ...run, ...model, ...(used ? { tokens: used } : {}) });
      } else if (!loadErrors.some((e) => e.path === refOf(item))) {
        // A task that cannot even start (e.g. a broken task.toml) is reported once; the job goes on.
        loadErrors.push({ path: refOf(item), message: ended.outcome.error?.message ?? 'did not start' });
      }
      job.onRunEnded?.(item, ended.outcome, ended.trace);
      report();
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(maxConcurrent, Math.max(1, queue.length)) }, worker));
  } finally {
    await removals.drain();
    tokens.dispose();
  }
  // Runs a Ctrl-C kept from starting still count: the summary covers the whole job asked for.
  for (const item of queue.slice(next)) {
    const model = item.model === undefined ? {} : { model: item.model };
    byRef.get(keyOf(item))?.push({
      rolloutId: '',
      status: 'cancelled',
      reward: null,
      error: null,
      trace: undefined,
      notStarted: true,
      ...model,
    });
    progress.done++;
    progress.cancelled++;
  }
  if (next < queue.length) report();

  const summary = summarise({ jobId, label: job.label, startedAt, group, threshold, byRef, cells, loadErrors });
  const models = [...new Set(job.items.flatMap((i) => (i.model === undefined ? [] : [i.model])))];
  if (models.length) Object.assign(summary, summarizeModels(summary.tasks, models, threshold, group));
  if (job.summaryDir !== null) {
    try {
      writeSummary(summary, job.summaryDir);
    } catch (err) {
      // The summary itself still reaches the caller (eval prints it); only the file is missing.
      summary.summaryError = errorMessage(err);
    }
  }
  return summary;
}

function refOf(item: JobItem): string {
  return item.task?.ref ?? item.request.ref;
}

/** Runs are grouped per task, and per model in a job across models. */
function keyOf(item: JobItem): string {
  return item.model === undefined ? refOf(item) : `${item.model}\u0000${refOf(item)}`;
}

async function runItem(
  item: JobItem,
  job: JobRequest,
  hub: EventHub,
  run: Required<Pick<RunContext, 'jobId' | 'rolloutId' | 'removeLater'>>,
): Promise<{ outcome: RolloutOutcome; trace: Trace | undefined }> {
  try {
    const { trace, ...outcome } = await runTask(item.request, {
      hub,
      ...run,
      selected: job.selected,
      ...(item.task ? { task: item.task } : {}),
      ...(job.signal ? { signal: job.signal } : {}),
      ...(job.notice ? { notice: job.notice } : {}),
    });
    return { outcome, trace };
  } catch (err) {
    // What escapes runTask failed before a rollout existed: a wrong reference, an agent without its setting.
    const fix = fixOf(err);
    const outcome: RolloutOutcome = {
      rolloutId: '',
      ref: refOf(item),
      status: 'error',
      reward: null,
      result: null,
      error: { phase: 'setup', message: errorMessage(err), ...(fix ? { fix } : {}) },
      tracePath: undefined,
    };
    return { outcome, trace: undefined };
  }
}

interface Tally {
  jobId: string;
  label: string;
  startedAt: string;
  group: number;
  threshold: number;
  byRef: Map<string, JobRun[]>;
  cells: Map<string, { ref: string; model: string | undefined }>;
  loadErrors: JobSummary['loadErrors'];
}

function summarise({ jobId, label, startedAt, group, threshold, byRef, cells, loadErrors }: Tally): JobSummary {
  const tasks: JobTaskSummary[] = [...byRef].map(([key, runs]) => {
    const passed = runs.filter((r) => passes(r, threshold)).length;
    const { ref, model } = cells.get(key) ?? { ref: key, model: undefined };
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
  const runs = tasks.flatMap((t) => t.runs);
  const ran = tasks.filter((t) => t.runs.length > 0);
  const endedAt = now();
  return {
    jobId,
    label,
    startedAt,
    endedAt,
    durationMs: Date.parse(endedAt) - Date.parse(startedAt),
    group,
    threshold,
    k: group,
    total: runs.length,
    ...countRuns(runs, loadErrors.length),
    passAt1: mean(ran.map((t) => t.passAt1)),
    passAtK: mean(ran.map((t) => t.passAtK)),
    tasks,
    loadErrors,
    traces: runs.flatMap((r) => (r.trace ? [r.trace] : [])),
    traceErrors: runs.filter((r) => r.traceError !== undefined).length,
    summaryPath: undefined,
  };
}

function writeSummary(summary: JobSummary, dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    summary.summaryPath = join(
      dir,
      `${fileTimestamp(summary.startedAt)}-job-${summary.jobId.slice(0, 8)}${JOB_FILE_SUFFIX}`,
    );
    writeFileAtomic(summary.summaryPath, `${JSON.stringify(summary, null, 2)}\n`);
  } catch (err) {
    summary.summaryPath = undefined;
    throw new HudStudioError('trace', `cannot write the job summary into ${dir}: ${(err as Error).message}`, {
      cause: err,
      fix: { kind: 'trace-dir' },
    });
  }
}

/**
 * The items of `PATH[::REF]...`: a Harbor directory is one item; an env.py
 * or task file is discovered once (in a throw-away substrate of the job's
 * provider) and gives one item per task. A wrong reference is the caller's
 * mistake and throws; a file that cannot be loaded is listed and skipped.
 */
export async function planJob(
  paths: string[],
  base: Omit<TaskRunRequest, 'ref'>,
  provider: Provider,
  signal?: AbortSignal,
): Promise<{ items: JobItem[]; loadErrors: JobSummary['loadErrors'] }> {
  if (paths.length === 0) throw new UsageError('a job needs at least one PATH');
  const items: JobItem[] = [];
  const loadErrors: JobSummary['loadErrors'] = [];
  for (const path of paths) {
    if (signal?.aborted) {
      loadErrors.push({ path, message: 'cancelled before its tasks were loaded' });
      continue;
    }
    if (isHarborDir(path, base.cwd)) {
      items.push({ request: { ...base, ref: path } });
      continue;
    }
    // A folder of Harbor task directories is a dataset: each task is an item (docs/harbor.md, "Jobs").
    const dataset = harborDatasetTasks(resolve(base.cwd, path));
    if (dataset) {
      for (const dir of dataset)
        items.push({ request: { ...base, ref: relative(base.cwd, dir).split(sep).join('/') || '.' } });
      continue;
    }
    try {
      for (const task of await loadTasks(path, base.cwd, provider, signal, base.module)) {
        items.push({ request: { ...base, ref: task.ref }, task });
      }
    } catch (err) {
      if (err instanceof UsageError) throw err;
      loadErrors.push({ path, message: errorMessage(err) });
    }
  }
  return { items, loadErrors };
}

/** Discovers the tasks of one `PATH[::REF]` in a throw-away substrate of the provider (Local for borrowed servers). */
export async function loadTasks(
  pathOrRef: string,
  cwd: string,
  provider: Provider,
  signal?: AbortSignal,
  module?: string,
): Promise<DiscoveredTask[]> {
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
