/**
 * Removes what crashed or killed owners left behind: managed containers whose
 * owner host is this machine and whose owner process is gone. A live
 * process's containers (another VS Code window, a CLI run in a terminal) and
 * other machines' containers on a shared daemon are never touched.
 */
import { hostname } from 'node:os';
import { dockerClient } from './client';
import { dockerStatus } from './errors';
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

/** Removes orphaned managed containers; returns how many were removed. */
export async function removeOrphans(): Promise<number> {
  const docker = dockerClient();
  const host = hostname();
  const listed = await docker.listContainers({
    all: true,
    filters: { label: [`${LABELS.managed}=true`, `${LABELS.ownerHost}=${host}`] },
  });
  let removed = 0;
  for (const c of listed) {
    const pid = Number(c.Labels[LABELS.ownerPid]);
    // A label we cannot read proves nothing about its owner: leave it.
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || processAlive(pid)) continue;
    try {
      await docker.getContainer(c.Id).remove({ force: true, v: true });
      removed++;
    } catch (err) {
      const status = dockerStatus(err);
      if (status !== 404 && status !== 409) throw err;
    }
  }
  return removed;
}
