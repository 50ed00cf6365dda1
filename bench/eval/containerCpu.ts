/**
 * CPU a rollout's container uses, from its creation until its server has
 * answered `hello` (the copy, the interpreter's start and imports, the
 * server's start), read from the container's own cgroup before the server
 * stops; the same provider code the eval runs, with the bundled runtime
 * mounted read-only or copied in (bench/eval/README.md). Alternates the two,
 * one container at a time, and prints one JSON document with the medians.
 *
 *   node --import tsx bench/eval/containerCpu.ts [--containers N] [--image IMAGE]
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DockerProvider, type DockerSubstrate } from '../../client/src/engine/providers/docker';
import { machineInfo } from '../support/machine';

const ROOT = join(__dirname, '..', '..');
const ENV_DIR = join(ROOT, 'test', 'fixtures', 'python', 'verifier_same_env');

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

/** The container's CPU time so far in ms (cgroup v1 with either driver, or v2). */
function cpuMsOf(id: string): number {
  const candidates: [string, (text: string) => number][] = [
    [`/sys/fs/cgroup/cpuacct/docker/${id}/cpuacct.usage`, (t) => Number(t) / 1e6],
    [`/sys/fs/cgroup/cpuacct/system.slice/docker-${id}.scope/cpuacct.usage`, (t) => Number(t) / 1e6],
    [`/sys/fs/cgroup/system.slice/docker-${id}.scope/cpu.stat`, usecOf],
    [`/sys/fs/cgroup/docker/${id}/cpu.stat`, usecOf],
  ];
  for (const [path, parse] of candidates) {
    try {
      return parse(readFileSync(path, 'utf8'));
    } catch {
      // Not this layout.
    }
  }
  throw new Error(`no cgroup CPU counter found for container ${id}`);
}

function usecOf(stat: string): number {
  const m = /^usage_usec (\d+)$/m.exec(stat);
  if (!m) throw new Error('cpu.stat without usage_usec');
  return Number(m[1]) / 1e3;
}

async function oneContainer(provider: DockerProvider, image: string): Promise<{ cpuMs: number; mounted: boolean }> {
  const logs: string[] = [];
  const s = (await provider.acquire(
    { envFile: join(ENV_DIR, 'env.py'), envDir: ENV_DIR, runtimeConfig: null, image },
    { rolloutId: `bench-${randomUUID()}`, phase: 'actor', log: (_, text) => logs.push(text) },
  )) as DockerSubstrate;
  try {
    await s.serve({ envName: 'workspace', log: () => undefined });
    const channel = await s.openChannel();
    await new Promise<void>((resolve, reject) => {
      channel.once('data', () => resolve());
      channel.once('error', reject);
      channel.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hello', params: {} })}\n`);
    });
    const cpuMs = cpuMsOf(s.container.id);
    channel.destroy();
    return { cpuMs, mounted: logs.some((l) => /mounted read-only/.test(l)) };
  } finally {
    await s.release();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function main(): Promise<void> {
  const n = Number(arg('--containers', '10'));
  const image = arg('--image', 'python:3.11-slim');
  const mounted = new DockerProvider({ mountRuntime: true });
  const copied = new DockerProvider({ mountRuntime: false });
  // Untimed: the image's inspection and SDK probe, the runtime's compiled folder, the kept archives.
  await oneContainer(mounted, image);
  await oneContainer(copied, image);
  const cpu = { mounted: [] as number[], copied: [] as number[] };
  for (let i = 0; i < n; i++) {
    const a = await oneContainer(mounted, image);
    if (!a.mounted) throw new Error('the runtime was not mounted: nothing to compare');
    cpu.mounted.push(a.cpuMs);
    const b = await oneContainer(copied, image);
    if (b.mounted) throw new Error('the runtime was mounted although the provider was told to copy it');
    cpu.copied.push(b.cpuMs);
  }
  const round = (x: number): number => Math.round(x * 10) / 10;
  console.log(
    JSON.stringify(
      {
        bench: 'eval/containerCpu',
        machine: machineInfo(),
        image,
        containers: n,
        what: "CPU of a container from its creation to the server's hello (its cgroup), ms",
        mounted: { median: round(median(cpu.mounted)), runs: cpu.mounted.map(round) },
        copied: { median: round(median(cpu.copied)), runs: cpu.copied.map(round) },
        savedPerContainerMs: round(median(cpu.copied) - median(cpu.mounted)),
      },
      null,
      2,
    ),
  );
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
