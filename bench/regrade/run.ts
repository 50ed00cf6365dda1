/**
 * Regrade benchmark (Docker provider): the wall time to grade a stored
 * rollout again against the wall time of running it anew, for a task whose
 * agent works for a few seconds (`--agent-seconds`, default 4). Both go
 * through the engine's one run entry; runs interleave (rerun, regrade, ...)
 * so both see the same machine load; medians are compared.
 * Target: rerun / regrade >= 5.
 *
 * `--regrade-runtime local` grades on a local process instead of a fresh
 * container (the rerun stays on Docker).
 *
 * Prints one JSON document. Run: npm run bench -- regrade [--iterations N] [--agent-seconds S] [--regrade-runtime R]
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandAgent } from '../../client/src/engine/agents/command';
import { dockerAvailable } from '../../client/src/engine/docker/client';
import { regradeTrace } from '../../client/src/engine/regrade/regrade';
import { runTask } from '../../client/src/engine/runTask';

const ROOT = join(__dirname, '..', '..');
const FIXTURE = join(ROOT, 'test', 'integration', 'regrade', 'fixtures', 'graded');
const TARGET = 5;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

async function main(): Promise<void> {
  const ready = await dockerAvailable();
  if (!ready.ok) throw new Error(`the regrade benchmark needs Docker: ${ready.reason}`);
  const iterations = arg('--iterations', 5);
  const agentSeconds = arg('--agent-seconds', 4);
  const ri = process.argv.indexOf('--regrade-runtime');
  const regradeRuntime = ri >= 0 ? (process.argv[ri + 1] ?? 'docker') : 'docker';
  const cwd = mkdtempSync(join(tmpdir(), 'hs-bench-regrade-'));
  cpSync(FIXTURE, join(cwd, 'graded'), { recursive: true });
  const rerunMs: number[] = [];
  const regradeMs: number[] = [];
  try {
    for (let i = 0; i < iterations; i++) {
      let t0 = performance.now();
      const run = await runTask(
        {
          ref: 'graded/env.py',
          cwd,
          runtime: 'docker',
          agent: { instance: new CommandAgent(`sleep ${agentSeconds}; echo apple apple apple`) },
          consent: { serviceAccess: false, sharedSecrets: false },
          traceDir: 'traces',
        },
        {},
      );
      rerunMs.push(performance.now() - t0);
      if (run.status !== 'completed' || run.reward !== 1)
        throw new Error(`the rollout did not score 1: ${JSON.stringify(run.error)}`);
      t0 = performance.now();
      const again = await regradeTrace(run.trace, { cwd, runtime: regradeRuntime, traceDir: 'traces' });
      regradeMs.push(performance.now() - t0);
      if (!again.delta || again.delta.after !== 1) throw new Error(`the regrade did not score 1: ${again.error ?? ''}`);
    }
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
  const rerun = median(rerunMs);
  const regrade = median(regradeMs);
  const ratio = rerun / regrade;
  console.log(
    JSON.stringify(
      {
        benchmark: 'regrade',
        agentSeconds,
        regradeRuntime,
        iterations,
        rerunMedianMs: Math.round(rerun),
        regradeMedianMs: Math.round(regrade),
        ratio: Number(ratio.toFixed(2)),
        target: `>= ${TARGET}`,
        met: ratio >= TARGET,
        rerunMs: rerunMs.map(Math.round),
        regradeMs: regradeMs.map(Math.round),
        loadavg: loadavg().map((x) => Number(x.toFixed(2))),
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
