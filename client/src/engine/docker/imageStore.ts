/**
 * Which store the daemon keeps images and container layers in. Docker's
 * containerd image store (the default of new Docker 29 installs, and
 * `containerd-snapshotter` before) accepts a container's `StorageOpt` size
 * and ignores it without a word, where the classic overlay2 store refuses it
 * unless it can enforce it. So a storage limit is only asked of the classic
 * store; on the other the engine says it was not applied (docs/engine.md,
 * "Docker engines").
 */
import type Docker from 'dockerode';

/** How long one daemon's answer is trusted: a daemon restarted with the other store is seen within this. */
const TRUST_MS = 60_000;

const known = new WeakMap<Docker, { at: number; store: Promise<string | undefined> }>();

/** The snapshotter's name (`overlayfs`) when the daemon uses containerd's image store, else undefined. */
export function containerdSnapshotter(docker: Docker): Promise<string | undefined> {
  const seen = known.get(docker);
  if (seen && Date.now() - seen.at < TRUST_MS) return seen.store;
  const store = docker
    .info()
    .then((info: { Driver?: string; DriverStatus?: unknown }) => snapshotterOf(info.Driver, info.DriverStatus));
  // A failed lookup is not kept: the next container asks again (unless a newer lookup has taken its place).
  store.catch(() => {
    if (known.get(docker)?.store === store) known.delete(docker);
  });
  known.set(docker, { at: Date.now(), store });
  return store;
}

/** `docker info`'s driver when its status names containerd's snapshotter (`driver-type`), as the Docker CLI does. */
export function snapshotterOf(driver: string | undefined, status: unknown): string | undefined {
  const rows = Array.isArray(status) ? (status as unknown[]) : [];
  const containerd = rows.some(
    (row) => Array.isArray(row) && row[0] === 'driver-type' && String(row[1]).startsWith('io.containerd.snapshotter'),
  );
  return containerd ? (driver ?? 'containerd') : undefined;
}
