/**
 * Rollout benchmark (Docker provider): the wall time of a trivial
 * same-environment rollout (actor + verifier on one container: build check,
 * container, copies, discovery, server, relayed channel, grading, teardown,
 * removal) against the floor measured in the same run with the docker CLI:
 * `docker run -d IMAGE sleep infinity` + `docker exec C python3 -c ...` +
 * `docker rm -f C` of the same image. Runs interleave (floor, engine, ...)
 * so both see the same machine load; medians are compared.
 * Also the two-substrate shape (actor and verifier each on a container of
 * its own: two containers, two servers, two channels) against the same
 * single-container floor, interleaved with the others: run again in one
 * process (the verifier's container starts with the actor's, from the last
 * discovery: engine/verifierHints.ts), and as the first run of the task in a
 * process (`hud-studio run`), where it starts after discovery.
 * Targets (issue 18): same environment / floor <= 1.2; two substrates / floor <= 2.2.
 *
 * Prints one JSON document. Run: npm run bench -- rollout [--iterations N]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FixedAgent } from '../../client/src/engine/agents/fixed';
import { dockerAvailable } from '../../client/src/engine/docker/client';
import { DEFAULT_IMAGE, DockerProvider } from '../../client/src/engine/providers/docker';
import { runRollout } from '../../client/src/engine/rollout';
import { forgetVerifierHints } from '../../client/src/engine/verifierHints';
import { machineInfo } from '../support/machine';
import { phaseBreakdown } from '../support/phases';

const ROOT = join(__dirname, '..', '..');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'python', 'verifier_same_env', 'env.py');
const TWO_ENV_FIXTURE = join(ROOT, 'test', 'fixtures', 'python', 'verifier_two_env', 'env.py');
const TARGET = 1.2;
const TWO_ENV_TARGET = 2.2;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

function docker(args: string[]): string {
  const r = spawnSync('docker', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`docker ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout.trim();
}

function floorOnce(image: string): number {
  const t0 = performance.now();
  const id = docker(['run', '-d', '--label', 'dev.hud-studio.bench=floor', image, 'sleep', 'infinity']);
  try {
    docker(['exec', id, 'python3', '-c', 'print("ok")']);
  } finally {
    docker(['rm', '-f', id]);
  }
  return performance.now() - t0;
}

async function engineOnce(traceDir: string, ref = FIXTURE, traces?: string[]): Promise<number> {
  const t0 = performance.now();
  const out = await runRollout({
    ref,
    provider: new DockerProvider(),
    agent: new FixedAgent('secret'),
    traceDir,
  });
  const ms = performance.now() - t0;
  if (out.status !== 'completed' || out.reward !== 1)
    throw new Error(`the benchmark rollout did not complete: ${JSON.stringify(out.error)}`);
  if (out.tracePath) traces?.push(out.tracePath);
  return ms;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const round = (x: number): number => Math.round(x * 10) / 10;

async function main(): Promise<void> {
  const available = await dockerAvailable();
  if (!available.ok) throw new Error(available.reason);
  const iterations = arg('--iterations', 7);
  const traceDir = mkdtempSync(join(tmpdir(), 'hs-bench-rollout-'));
  try {
    // Warm-up: the daemon's caches, the page cache, the first orphan sweep.
    floorOnce(DEFAULT_IMAGE);
    await engineOnce(traceDir);
    await engineOnce(traceDir, TWO_ENV_FIXTURE);
    const floor: number[] = [];
    const engine: number[] = [];
    const twoEnv: number[] = [];
    const engineTraces: string[] = [];
    const twoEnvTraces: string[] = [];
    const firstRun: number[] = [];
    const firstRunTraces: string[] = [];
    for (let i = 0; i < iterations; i++) {
      floor.push(floorOnce(DEFAULT_IMAGE));
      engine.push(await engineOnce(traceDir, FIXTURE, engineTraces));
      twoEnv.push(await engineOnce(traceDir, TWO_ENV_FIXTURE, twoEnvTraces));
      forgetVerifierHints();
      firstRun.push(await engineOnce(traceDir, TWO_ENV_FIXTURE, firstRunTraces));
    }
    const ratio = median(engine) / median(floor);
    const twoRatio = median(twoEnv) / median(floor);
    const firstRunRatio = median(firstRun) / median(floor);
    process.stdout.write(
      `${JSON.stringify(
        {
          bench: 'rollout',
          machine: machineInfo(),
          shape: 'same-environment (actor + verifier on one container)',
          image: DEFAULT_IMAGE,
          dockerVersion: available.version,
          iterations,
          floorMs: {
            median: round(median(floor)),
            runs: floor.map(round),
            what: 'docker run -d + docker exec python3 -c + docker rm -f',
          },
          engineMs: {
            median: round(median(engine)),
            runs: engine.map(round),
            what: 'runRollout with the Docker provider',
            phases: phaseBreakdown(engineTraces),
          },
          ratio: Math.round(ratio * 100) / 100,
          target: TARGET,
          withinTarget: ratio <= TARGET,
          twoSubstrates: {
            shape: 'actor and verifier on a container each (test/fixtures/python/verifier_two_env)',
            engineMs: { median: round(median(twoEnv)), runs: twoEnv.map(round), phases: phaseBreakdown(twoEnvTraces) },
            ratio: Math.round(twoRatio * 100) / 100,
            what: 'two-substrate rollout / the single-container floor above',
            target: TWO_ENV_TARGET,
            withinTarget: twoRatio <= TWO_ENV_TARGET,
            firstRunInProcess: {
              what: 'the same, with no earlier discovery of the task in the process: the verifier starts after discovery',
              engineMs: {
                median: round(median(firstRun)),
                runs: firstRun.map(round),
                phases: phaseBreakdown(firstRunTraces),
              },
              ratio: Math.round(firstRunRatio * 100) / 100,
              withinTarget: firstRunRatio <= TWO_ENV_TARGET,
            },
          },
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    rmSync(traceDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench rollout failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
