/**
 * The machine a benchmark ran on, printed beside its ratios: figures from a
 * shared 2-core machine mean little without the CPU, the runtime versions
 * and the load the other jobs put on it while it ran.
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism, cpus, loadavg } from 'node:os';

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  node: string;
  /** The Docker engine's version, or null when no engine answered. */
  docker: string | null;
  /** 1, 5 and 15 minute load averages. */
  loadAverage: number[];
  date: string;
}

function dockerServerVersion(): string | null {
  const r = spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], { encoding: 'utf8', timeout: 10_000 });
  const v = r.status === 0 ? r.stdout.trim() : '';
  return v === '' ? null : v;
}

export function machineInfo(): MachineInfo {
  return {
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    cores: availableParallelism(),
    node: process.version,
    docker: dockerServerVersion(),
    loadAverage: loadavg().map((n) => Math.round(n * 100) / 100),
    date: new Date().toISOString(),
  };
}
