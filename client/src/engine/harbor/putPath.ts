/**
 * Copy-in for the trial's verifier. Works around a socket leak in
 * DockerContainer.copyIn: it probes the destination with dockerode's
 * `infoArchive`, whose HEAD response stream is never consumed, so every copy
 * into an existing folder keeps a socket open and the process cannot exit for
 * minutes. Here the archive is unpacked at `/` with the destination as a
 * name prefix and no parent entries: Docker creates missing parents itself
 * and leaves existing ones (and their modes) alone, so no probe is needed.
 */
import { lstat, readlink } from 'node:fs/promises';
import { basename, posix } from 'node:path';
import { DockerContainer, type CopyInOptions } from '../docker/container';
import { ContainerError, dockerMessage } from '../docker/errors';
import { packEntries, walkFolder, type FolderEntry } from '../docker/tar';
import type { ManagedContainer } from '../docker/types';

/** A folder's contents go into `dest`; a file goes to `dest/<its name>` (as ManagedContainer.copyIn). */
export async function putPath(container: ManagedContainer, hostPath: string, dest: string, opts: CopyInOptions = {}): Promise<void> {
  if (!(container instanceof DockerContainer)) return container.copyIn(hostPath, dest);
  const st = await lstat(hostPath);
  const single = { rel: basename(hostPath), abs: hostPath, mode: st.mode & 0o7777, mtime: st.mtime };
  // A symlink travels as a symlink: following it would copy host files into the container.
  const entries: FolderEntry[] = st.isDirectory()
    ? await walkFolder(hostPath, opts.skip)
    : st.isSymbolicLink()
      ? [{ ...single, type: 'symlink', size: 0, linkname: await readlink(hostPath) }]
      : [{ ...single, type: 'file', size: st.size }];
  if (entries.length === 0) {
    await container.exec(['mkdir', '-p', posix.resolve('/', dest)], { user: 'root', timeoutMs: 30_000 });
    return;
  }
  const rel = posix.resolve('/', dest).slice(1);
  try {
    await container.handle.putArchive(packEntries(entries, { prefix: rel ? `${rel}/` : '' }), { path: '/' });
  } catch (err) {
    throw new ContainerError(`copying ${hostPath} to ${dest} in container ${container.id.slice(0, 12)} failed: ${dockerMessage(err)}`, { cause: err });
  }
}
