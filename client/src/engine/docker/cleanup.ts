/**
 * Removes what crashed or killed owners left behind: managed containers whose
 * owner host is this machine and whose owner process is gone. A live
 * process's containers (another VS Code window, a CLI run in a terminal) and
 * other machines' containers on a shared daemon are never touched.
 */
import { hostname } from 'node:os';
import { dockerClient } from './client';
import { dockerMessage, dockerStatus } from './errors';
import { LABELS } from './types';

/** True when a process with this pid exists on this host (EPERM means it exists). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether labels name an owner on this host that is gone (a label we cannot read proves nothing: no). */
function ownerGone(labels: Record<string, string> | undefined): boolean {
  const pid = Number(labels?.[LABELS.ownerPid]);
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && !processAlive(pid);
}

export interface Removed {
  containers: number;
  networks: number;
}

/**
 * Removes orphaned managed containers, then the networks such owners made (a compose project's, an
 * allowlist's), which Docker only removes once no container is on them.
 */
export async function removeOrphans(): Promise<Removed> {
  const docker = dockerClient();
  const filters = { label: [`${LABELS.managed}=true`, `${LABELS.ownerHost}=${hostname()}`] };
  const removed: Removed = { containers: 0, networks: 0 };
  for (const c of await docker.listContainers({ all: true, filters })) {
    if (!ownerGone(c.Labels)) continue;
    try {
      await docker.getContainer(c.Id).remove({ force: true, v: true });
      removed.containers++;
    } catch (err) {
      const status = dockerStatus(err);
      if (status !== 404 && status !== 409) throw err;
    }
  }
  for (const n of await docker.listNetworks({ filters })) {
    if (!ownerGone(n.Labels)) continue;
    try {
      await docker.getNetwork(n.Id).remove();
      removed.networks++;
    } catch (err) {
      if (dockerStatus(err) !== 404) throw err;
    }
  }
  return removed;
}

let sweep: Promise<void> | undefined;

/** {@link removeOrphans} once per process, before the first thing the engine starts; never throws. */
export function sweepOrphansOnce(log: (line: string) => void): Promise<void> {
  sweep ??= removeOrphans().then(
    (n) =>
      n.containers || n.networks
        ? log(
            `removed ${n.containers} container(s) and ${n.networks} network(s) left by HUD Studio processes that are gone`,
          )
        : undefined,
    (err: unknown) =>
      log(`warning: could not look for leftovers of HUD Studio processes that are gone: ${dockerMessage(err)}`),
  );
  return sweep;
}
