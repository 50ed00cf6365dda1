/**
 * Regrade benchmark: the wall time to grade a stored rollout again against
 * the wall time of running it anew, for a task whose agent works for a few
 * seconds (`--agent-seconds`, default 4). Two tasks, each on Docker and on
 * the local runtime:
 *
 * - `graded`: no verifier; the regrade answers a fresh actor's first yield
 *   with the recorded answer.
 * - `judged`: a verifier in another environment; the regrade runs only the
 *   verifier, on the recorded actor result frame.
 *
 * Both go through the engine's one run entry. Runs interleave (rerun,
 * regrade, ...) so both see the same machine load; medians are compared, and
 * the regrade's median time per step (from its trace) shows where it goes.
 * Then `--batch` stored rollouts (default 12, the stored runs cycled) are
 * regraded at once through the public entry, as the CLI and the editor's
 * "Regrade 12 stored runs" do: the next rollout's substrate is made while
 * one grades and removed in the background. Per-rollout and batch ratios
 * come from the same repeat as the rerun they divide. `--repeats` (default 3)
 * does it all again. Target: rerun / regrade >= 5.
 *
 * Prints one JSON document. Run: npm run bench -- regrade [--iterations N] [--agent-seconds S]
 *   [--batch N] [--repeats N] [--runtime docker|local] [--task graded|judged]
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandAgent } from '../../client/src/engine/agents/command';
import { dockerAvailable } from '../../client/src/engine/docker/client';
import { regradeTrace } from '../../client/src/engine/regrade/regrade';
import { regradeRollouts } from '../../client/src/engine/regrade/regradeRollouts';
import { runTask, selectRuntime } from '../../client/src/engine/runTask';
import type { Trace } from '../../common/trace/schema';
import { machineInfo } from '../support/machine';

const ROOT = join(__dirname, '..', '..');
const FIXTURES = join(ROOT, 'test', 'integration', 'regrade', 'fixtures');
const TARGET = 5;

const TASKS = {
  graded: { ref: 'graded/env.py', answer: 'apple apple apple' },
  judged: { ref: 'judged/env.py', answer: 'secret' },
} as const;
type TaskName = keyof typeof TASKS;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** Milliseconds per `phase/step` of a finished trace. */
function stepTimes(t: Trace): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of t.phases) {
    for (const s of p.steps) {
      if (!s.endedAt) continue;
      const key = `${p.name}/${s.step}`;
      out[key] = (out[key] ?? 0) + Date.parse(s.endedAt) - Date.parse(s.startedAt);
    }
  }
  return out;
}

function medianSteps(runs: Record<string, number>[]): Record<string, number> {
  const keys = [...new Set(runs.flatMap((r) => Object.keys(r)))];
  return Object.fromEntries(keys.map((k) => [k, Math.round(median(runs.map((r) => r[k] ?? 0)))]));
}

async function bench(task: TaskName, runtime: string, iterations: number, agentSeconds: number, batchSize: number) {
  const cwd = mkdtempSync(join(tmpdir(), 'hs-bench-regrade-'));
  const { ref, answer } = TASKS[task];
  cpSync(join(FIXTURES, task), join(cwd, task), { recursive: true });
  const selected = await selectRuntime({ runtime, consent: { serviceAccess: false, sharedSecrets: false } });
  const rerunMs: number[] = [];
  const regradeMs: number[] = [];
  const regradeSteps: Record<string, number>[] = [];
  const stored: Trace[] = [];
  let batchMs: number;
  try {
    for (let i = 0; i < iterations; i++) {
      let t0 = performance.now();
      const run = await runTask(
        {
          ref,
          cwd,
          runtime,
          agent: { instance: new CommandAgent(`sleep ${agentSeconds}; printf '${answer}'`) },
          consent: { serviceAccess: false, sharedSecrets: false },
          traceDir: 'traces',
        },
        { selected },
      );
      rerunMs.push(performance.now() - t0);
      if (run.status !== 'completed' || run.reward !== 1)
        throw new Error(`the ${task} rollout did not score 1: ${JSON.stringify(run.error)}`);
      stored.push(run.trace);
      t0 = performance.now();
      const again = await regradeTrace(run.trace, { cwd, runtime, traceDir: 'traces', context: { selected } });
      regradeMs.push(performance.now() - t0);
      if (!again.delta || again.delta.after !== 1)
        throw new Error(`the ${task} regrade did not score 1: ${again.error}`);
      regradeSteps.push(stepTimes(again.trace!));
    }
    // A batch as the CLI and the editor regrade one: the stored rollouts, cycled to `batchSize`.
    const batch = Array.from({ length: batchSize }, (_, i) => stored[i % stored.length]!);
    const t0 = performance.now();
    const report = await regradeRollouts(batch, {
      cwd,
      runtime,
      traceDir: 'traces',
      context: { selected },
      maxConcurrent: Number(arg('--concurrent') ?? 1),
    });
    batchMs = performance.now() - t0;
    if (report.summary.unchanged !== batch.length)
      throw new Error(`the ${task} batch regrade changed a reward: ${JSON.stringify(report.summary)}`);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
  const rerun = median(rerunMs);
  const regrade = median(regradeMs);
  const ratio = Number((rerun / regrade).toFixed(2));
  const perRollout = batchMs / batchSize;
  const batchRatio = Number((rerun / perRollout).toFixed(2));
  return {
    task,
    runtime: selected.provider.kind,
    rerunMedianMs: Math.round(rerun),
    regradeMedianMs: Math.round(regrade),
    ratio,
    met: ratio >= TARGET,
    batch: {
      rollouts: batchSize,
      totalMs: Math.round(batchMs),
      perRolloutMs: Math.round(perRollout),
      ratio: batchRatio,
      met: batchRatio >= TARGET,
    },
    regradeStepsMedianMs: medianSteps(regradeSteps),
    rerunMs: rerunMs.map(Math.round),
    regradeMs: regradeMs.map(Math.round),
    loadAverage: Number(loadavg()[0]!.toFixed(1)),
  };
}

async function main(): Promise<void> {
  const iterations = Number(arg('--iterations') ?? 5);
  const agentSeconds = Number(arg('--agent-seconds') ?? 4);
  const batchSize = Number(arg('--batch') ?? 12);
  const repeats = Number(arg('--repeats') ?? 3);
  const runtimes = arg('--runtime') ? [arg('--runtime')!] : ['docker', 'local'];
  const tasks = (arg('--task') ? [arg('--task')] : Object.keys(TASKS)) as TaskName[];
  if (runtimes.includes('docker')) {
    const ready = await dockerAvailable();
    if (!ready.ok) throw new Error(`the regrade benchmark needs Docker: ${ready.reason}`);
  }
  const runs: ({ repeat: number } & Awaited<ReturnType<typeof bench>>)[] = [];
  for (let repeat = 1; repeat <= repeats; repeat++)
    for (const runtime of runtimes)
      for (const task of tasks)
        runs.push({ repeat, ...(await bench(task, runtime, iterations, agentSeconds, batchSize)) });
  // Per case, the ratios of every repeat (each from its own rerun), and their median.
  const summary = runtimes.flatMap((runtime) =>
    tasks.map((task) => {
      const mine = runs.filter((r) => r.task === task && r.runtime === runtime);
      const ratios = mine.map((r) => r.ratio);
      const batchRatios = mine.map((r) => r.batch.ratio);
      return {
        task,
        runtime,
        ratios,
        medianRatio: median(ratios),
        batchRatios,
        medianBatchRatio: median(batchRatios),
        met: median(batchRatios) >= TARGET && median(ratios) >= TARGET,
      };
    }),
  );
  console.log(
    JSON.stringify(
      {
        benchmark: 'regrade',
        agentSeconds,
        iterations,
        batch: batchSize,
        repeats,
        target: `rerun / regrade >= ${TARGET}`,
        met: summary.every((c) => c.met),
        summary,
        runs,
        machine: machineInfo(),
      },
      null,
      2,
    ),
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
