/**
 * A job over Harbor tasks gets a job folder Harbor's tools read
 * (docs/harbor.md, "Jobs"): `<trace dir>/jobs/<job id>/` holds one trial
 * folder per run and `result.json`, Harbor's JobResult, whose stats group
 * trials by agent and dataset (`source`, else "adhoc") with Harbor's metrics
 * (mean, sum, min, max over the reward dicts, a missing reward counting 0),
 * pass@k where every reward is 0 or 1, and the trials per reward value and
 * per exception type.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../trace/store';
import type { TrialResult } from './trialFolder';

export function harborJobDir(traceDir: string, jobId: string): string {
  return join(traceDir, 'jobs', jobId);
}

type Rewards = Record<string, number | string>;

interface EvalStats {
  n_trials: number;
  n_errors: number;
  metrics: Record<string, number>[];
  pass_at_k: Record<number, number>;
  reward_stats: Record<string, Record<string, string[]>>;
  exception_stats: Record<string, string[]>;
}

/** Reads every trial folder of the job and writes its result.json; returns the path. */
export function writeHarborJobResult(
  dir: string,
  job: { id: string; startedAt: string; finishedAt: string; totalTrials: number },
): string | undefined {
  if (!existsSync(dir)) return undefined;
  const trials: TrialResult[] = [];
  for (const name of readdirSync(dir).sort()) {
    const file = join(dir, name, 'result.json');
    if (!existsSync(file)) continue;
    try {
      trials.push(JSON.parse(readFileSync(file, 'utf8')) as TrialResult);
    } catch {
      // A trial folder without a readable result was cut short; Harbor's stats skip it too.
    }
  }
  const evals: Record<string, EvalStats> = {};
  const groups: Record<string, TrialResult[]> = {};
  let errored = 0;
  let cancelled = 0;
  for (const t of trials) {
    const key = `${t.agent_info.name}__${t.source ?? 'adhoc'}`;
    const stats = (evals[key] ??= {
      n_trials: 0,
      n_errors: 0,
      metrics: [],
      pass_at_k: {},
      reward_stats: {},
      exception_stats: {},
    });
    (groups[key] ??= []).push(t);
    if (t.verifier_result) {
      stats.n_trials++;
      for (const [k, v] of Object.entries(t.verifier_result.rewards))
        ((stats.reward_stats[k] ??= {})[String(v)] ??= []).push(t.trial_name);
    }
    if (t.exception_info) {
      (stats.exception_stats[t.exception_info.exception_type] ??= []).push(t.trial_name);
      stats.n_errors++;
      errored++;
      if (t.exception_info.exception_type === 'CancelledError') cancelled++;
    }
  }
  for (const [key, group] of Object.entries(groups)) {
    const rewards = group.map((t) => (t.verifier_result ? numeric(t.verifier_result.rewards) : null));
    const stats = evals[key]!;
    stats.metrics = [
      aggregate(rewards, 'mean', (v) => v.reduce((a, b) => a + b, 0) / v.length),
      aggregate(rewards, 'sum', (v) => v.reduce((a, b) => a + b, 0)),
      aggregate(rewards, 'min', (v) => Math.min(...v)),
      aggregate(rewards, 'max', (v) => Math.max(...v)),
    ];
    stats.pass_at_k = passAtK(group);
  }
  const path = join(dir, 'result.json');
  const total = Math.max(job.totalTrials, trials.length);
  const starts = trials.map((t) => t.started_at).sort();
  const result = {
    id: job.id,
    started_at: starts[0] ?? job.startedAt,
    updated_at: job.finishedAt,
    finished_at: job.finishedAt,
    n_total_trials: total,
    stats: {
      n_completed_trials: trials.length,
      n_errored_trials: errored,
      n_running_trials: 0,
      n_pending_trials: Math.max(total - trials.length, 0),
      n_cancelled_trials: cancelled,
      n_retries: 0,
      evals,
    },
  };
  writeFileAtomic(path, `${JSON.stringify(result, null, 2)}\n`);
  return path;
}

function numeric(r: Rewards): Record<string, number> {
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'number' ? v : Number(v)]));
}

/** Harbor's aggregate over reward dicts: one key (or none) is named after the metric; several keep their names. */
function aggregate(
  rewards: (Record<string, number> | null)[],
  metric: string,
  fn: (values: number[]) => number,
): Record<string, number> {
  const keys = [...new Set(rewards.flatMap((r) => (r ? Object.keys(r) : [])))].sort();
  if (keys.length <= 1) return { [metric]: fn(rewards.map((r) => (r ? (Object.values(r)[0] ?? 0) : 0))) };
  return Object.fromEntries(keys.map((k) => [k, fn(rewards.map((r) => r?.[k] ?? 0))]));
}

/**
 * Harbor's pass@k: only when every trial has one 0/1 reward; k = 2, 4, 8, ... and 5, 10, ... up to the
 * fewest runs of any task.
 */
export function passAtK(trials: TrialResult[]): Record<number, number> {
  const byTask: Record<string, number[]> = {};
  for (const t of trials) {
    const r = t.verifier_result?.rewards;
    if (!r) {
      (byTask[t.task_name] ??= []).push(0);
      continue;
    }
    const values = Object.values(r);
    if (values.length !== 1 || (values[0] !== 0 && values[0] !== 1)) return {};
    (byTask[t.task_name] ??= []).push(values[0]);
  }
  const tasks = Object.values(byTask);
  if (tasks.length === 0) return {};
  const maxK = Math.min(...tasks.map((s) => s.length));
  const ks = new Set<number>();
  for (let k = 2; k <= maxK; k *= 2) ks.add(k);
  for (let k = 5; k <= maxK; k += 5) ks.add(k);
  const out: Record<number, number> = {};
  for (const k of [...ks].sort((a, b) => a - b)) {
    out[k] =
      tasks.reduce(
        (sum, s) =>
          sum +
          passAtKForTask(
            s.length,
            s.reduce((a, b) => a + b, 0),
            k,
          ),
        0,
      ) / tasks.length;
  }
  return out;
}

function passAtKForTask(n: number, c: number, k: number): number {
  if (n - c < k) return 1;
  let product = 1;
  for (let i = 0; i < k; i++) product *= (n - c - i) / (n - i);
  return 1 - product;
}
