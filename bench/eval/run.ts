/**
 * Eval benchmark (Docker provider): `hud-studio eval` of N trivial rollouts
 * (default 200) at --max-concurrent C (default 8), as a user runs it (the
 * built CLI in its own process), against the floor measured in the same run:
 * the same count of `docker run -d IMAGE sleep infinity` + `docker exec C
 * python3 -c ...` + `docker rm -f C`, C at once. Floor and eval alternate
 * over the runs so both see the same machine load. Also: the CLI's peak RSS,
 * that every run wrote its trace, and that no container of the CLI was left.
 * Target: eval / floor <= 1.15.
 *
 * Prints one JSON document. Run after `node scripts/build.mjs`:
 *   npm run bench -- eval [--rollouts N] [--concurrency C] [--runs R]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineInfo } from '../support/machine';
import { phaseBreakdown, type PhaseBreakdown } from '../support/phases';

const ROOT = join(__dirname, '..', '..');
const CLI = join(ROOT, 'bin', 'hud-studio.js');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'python', 'verifier_same_env', 'env.py');
const IMAGE = 'python:3.11-slim';
const TARGET = 1.15;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

function run(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number; out: string; err: string; pid: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out, err, pid: child.pid ?? -1 }));
  });
}

async function docker(args: string[]): Promise<string> {
  const r = await run('docker', args);
  if (r.code !== 0) throw new Error(`docker ${args.join(' ')} failed: ${r.err}`);
  return r.out.trim();
}

async function floorOne(): Promise<void> {
  const id = await docker(['run', '-d', '--label', 'dev.hud-studio.bench=floor', IMAGE, 'sleep', 'infinity']);
  try {
    await docker(['exec', id, 'python3', '-c', 'print("ok")']);
  } finally {
    await docker(['rm', '-f', id]);
  }
}

/** N start/exec/stop cycles, C at once: what the provider cannot go below. */
async function floorOnce(n: number, c: number): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < n) {
      next++;
      await floorOne();
    }
  };
  await Promise.all(Array.from({ length: Math.min(c, n) }, lane));
  return performance.now() - t0;
}

interface EvalSample {
  ms: number;
  peakRssMB: number;
  completed: number;
  tracesWritten: number;
  containersLeft: number;
  phases: PhaseBreakdown;
}

async function evalOnce(n: number, c: number): Promise<EvalSample> {
  const traceDir = mkdtempSync(join(tmpdir(), 'hs-bench-eval-'));
  const rssFile = join(traceDir, 'peak-rss-kb');
  try {
    const args = ['-r', join(__dirname, 'peakRss.cjs'), CLI, 'eval', FIXTURE, '--agent', 'fixed', '--answer', 'secret'];
    args.push(
      '--group',
      String(n),
      '--max-concurrent',
      String(c),
      '--runtime',
      'docker',
      '--trace-dir',
      traceDir,
      '--json',
    );
    const t0 = performance.now();
    const r = await run(process.execPath, args, { ...process.env, HUD_BENCH_RSS_FILE: rssFile });
    const ms = performance.now() - t0;
    if (r.code !== 0) throw new Error(`hud-studio eval exited ${r.code}: ${r.err.slice(-2000)}`);
    const summary = JSON.parse(r.out) as { completed: number; runs: { trace?: string }[] };
    const traces = readdirSync(traceDir, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.hudtrace.json'),
    );
    const phases = phaseBreakdown(traces.map((f) => join(traceDir, f)));
    const left = await docker(['ps', '-aq', '--filter', `label=dev.hud-studio.owner-pid=${r.pid}`]);
    return {
      ms,
      peakRssMB: Number(readFileSync(rssFile, 'utf8')) / 1024,
      completed: summary.completed,
      tracesWritten: traces.length,
      containersLeft: left === '' ? 0 : left.split('\n').length,
      phases,
    };
  } finally {
    rmSync(traceDir, { recursive: true, force: true });
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const round = (x: number): number => Math.round(x * 10) / 10;

async function main(): Promise<void> {
  const n = arg('--rollouts', 200);
  const c = arg('--concurrency', 8);
  const runs = arg('--runs', 3);
  if (spawnSync(process.execPath, [CLI, '--help']).status === null)
    throw new Error('build the CLI first: node scripts/build.mjs');
  // Warm-up: the daemon's caches, the page cache, the CLI's first orphan sweep.
  await floorOnce(c, c);
  await evalOnce(c, c);
  const floor: number[] = [];
  const evals: EvalSample[] = [];
  for (let i = 0; i < runs; i++) {
    floor.push(await floorOnce(n, c));
    evals.push(await evalOnce(n, c));
  }
  const ratios = evals.map((e, i) => e.ms / floor[i]!);
  const ratio = median(evals.map((e) => e.ms)) / median(floor);
  const everyTrace = evals.every((e) => e.completed === n && e.tracesWritten === n);
  const noneLeft = evals.every((e) => e.containersLeft === 0);
  process.stdout.write(
    `${JSON.stringify(
      {
        bench: 'eval',
        machine: machineInfo(),
        fixture: 'test/fixtures/python/verifier_same_env/env.py (same environment, fixed agent)',
        image: IMAGE,
        rollouts: n,
        concurrency: c,
        runs,
        floorMs: {
          median: round(median(floor)),
          runs: floor.map(round),
          what: `${n} x (docker run -d + exec + rm -f), ${c} at once`,
        },
        evalMs: {
          median: round(median(evals.map((e) => e.ms))),
          runs: evals.map((e) => round(e.ms)),
          what: 'hud-studio eval --json, its own process',
        },
        ratio: Math.round(ratio * 100) / 100,
        perRunRatios: ratios.map((r) => Math.round(r * 100) / 100),
        peakRssMB: evals.map((e) => round(e.peakRssMB)),
        tracesWritten: evals.map((e) => e.tracesWritten),
        containersLeft: evals.map((e) => e.containersLeft),
        phasesPerRun: evals.map((e) => e.phases),
        target: { ratio: TARGET, met: ratio <= TARGET && everyTrace && noneLeft },
      },
      null,
      2,
    )}\n`,
  );
  if (!everyTrace || !noneLeft) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
