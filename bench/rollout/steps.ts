/**
 * Where a benchmark rollout's time goes: runs the rollout of run.ts with the
 * Docker provider's and substrate's steps timed (acquire = container create,
 * start and copy in; exec = discovery; serve; openChannel; each frame on the
 * channel; release = SIGTERM + teardown wait + removal) and prints, per run,
 * one JSON line with each step's start and duration relative to the rollout's
 * start. Diagnostic: run.ts holds the figures that count.
 *
 * Run: node --import tsx bench/rollout/steps.ts [--iterations N] [--two-substrates]
 * (`--two-substrates`: the actor and the verifier on a container each).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { FixedAgent } from '../../client/src/engine/agents/fixed';
import { DockerContainer } from '../../client/src/engine/docker/container';
import { DockerProvider, DockerSubstrate } from '../../client/src/engine/providers/docker';
import { runRollout } from '../../client/src/engine/rollout';

const FIXTURE = join(
  __dirname,
  '..',
  '..',
  'test',
  'fixtures',
  'python',
  process.argv.includes('--two-substrates') ? 'verifier_two_env' : 'verifier_same_env',
  'env.py',
);

interface Step {
  step: string;
  atMs: number;
  ms: number;
}
let t0 = 0;
let steps: Step[] = [];
const now = (): number => Math.round(performance.now() - t0);

/** Times every call of `proto[name]`; an argv first argument is added to the label. */
function timed(proto: object, name: string, label: string, then?: (value: unknown) => void): void {
  const methods = proto as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const original = methods[name]!;
  methods[name] = function (this: unknown, ...args: unknown[]) {
    const atMs = now();
    const first: unknown = args[0];
    const argv =
      Array.isArray(first) && first.every((a) => typeof a === 'string') ? ` ${first.slice(0, 3).join(' ')}` : '';
    const record = (suffix: string): void =>
      void steps.push({ step: `${label}${argv}${suffix}`, atMs, ms: now() - atMs });
    return original.apply(this, args).then(
      (value) => (record(''), then?.(value), value),
      (err: unknown) => {
        record(' (failed)');
        throw err;
      },
    );
  };
}

/** Marks each JSON-RPC frame sent (by method) and received (by id) on the channel. */
function frames(value: unknown): void {
  const stream = value as Duplex;
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((...args: unknown[]) => {
    const method = /"method"\s*:\s*"([^"]+)"/.exec(String(args[0]))?.[1] ?? '?';
    steps.push({ step: `send ${method}`, atMs: now(), ms: 0 });
    return write(...args);
  }) as Duplex['write'];
  stream.on('data', (chunk: Buffer) => {
    const id = /"id"\s*:\s*("?[^",}]+)/.exec(chunk.toString())?.[1] ?? '?';
    steps.push({ step: `recv id ${id}`, atMs: now(), ms: 0 });
  });
}

timed(DockerProvider.prototype, 'acquire', 'acquire (create, start, copy in)');
timed(DockerContainer.prototype, 'putPacked', 'copy in by putArchive');
timed(
  DockerSubstrate.prototype,
  'prestartWithCopy',
  'copy in through the pre-started interpreter (its exec, start, unpack)',
);
timed(DockerSubstrate.prototype, 'exec', 'exec');
timed(DockerSubstrate.prototype, 'execPython', 'execPython');
timed(DockerSubstrate.prototype, 'serve', 'serve');
timed(DockerSubstrate.prototype, 'openChannel', 'openChannel', frames);
timed(DockerSubstrate.prototype, 'release', 'release (SIGTERM, teardown, remove)');
timed(DockerContainer.prototype, 'remove', 'container remove');

async function main(): Promise<void> {
  const i = process.argv.indexOf('--iterations');
  const iterations = i >= 0 ? Number(process.argv[i + 1]) : 3;
  const traceDir = mkdtempSync(join(tmpdir(), 'hs-bench-steps-'));
  try {
    for (let run = 0; run <= iterations; run++) {
      steps = [];
      t0 = performance.now();
      const out = await runRollout({
        ref: FIXTURE,
        provider: new DockerProvider(),
        agent: new FixedAgent('secret'),
        traceDir,
      });
      const totalMs = now();
      if (out.status !== 'completed' || out.reward !== 1)
        throw new Error(`the rollout did not complete: ${JSON.stringify(out.error)}`);
      if (run === 0) continue; // warm-up
      steps.sort((a, b) => a.atMs - b.atMs);
      process.stdout.write(`${JSON.stringify({ run, totalMs, steps })}\n`);
    }
  } finally {
    rmSync(traceDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench rollout steps failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
