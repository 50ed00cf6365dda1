/**
 * The bundled runtime bind-mounted read-only into a container instead of
 * copied into it and unpacked there (docs/substrate-copy.md). Only the
 * compiled runtime's folder in the user's cache is ever mounted: a folder
 * of its own, named by its content, never the repository or a home folder
 * (docs/security.md). Only a daemon on a local unix socket is asked, and
 * even then it may see another file system than ours (a daemon in a VM, a
 * socket shared into a dev container): the container's interpreter reads
 * the folder's content id before it uses anything in it
 * (runtime/python/hud_studio/unpack.py), and any failure copies the runtime
 * as before.
 */
import { CONTENT_ID_FILE, type RuntimeCopySource } from '../runtimeBytecode';

export { CONTENT_ID_FILE };

export interface RuntimeMount {
  /** The folder as the daemon sees it. */
  readonly source: string;
  /** What the container must read in {@link CONTENT_ID_FILE} there; anything else is not our runtime. */
  readonly contentId: string;
}

/**
 * The reply of an interpreter that found something else than the engine's
 * runtime at the mount (the name of unpack.py's exception): the daemon does
 * not see our files, so the runtime is copied.
 */
export const MOUNT_MISMATCH = 'RuntimeMountMismatch';

/** unpack.py's arguments for a container whose runtime is mounted at `dir`. */
export function mountedRuntimeArgs(dir: string, mount: RuntimeMount): string[] {
  return ['--mounted-runtime', dir, mount.contentId];
}

/** Whether `host` is a daemon on this machine's unix socket (DOCKER_HOST syntax). */
export function onLocalSocket(host: string): boolean {
  return host.startsWith('unix://') || host.startsWith('/');
}

/**
 * The mount for a container of the daemon at `host`, or undefined when the
 * runtime goes in by copy: the runtime has no compiled folder in the cache
 * (no host python3), the daemon is not on a local socket, or a container of
 * this job already found the mount refused or wrong. `source`: where the
 * daemon finds the folder, when that is another path than ours.
 */
export function runtimeMountFor(
  runtime: RuntimeCopySource,
  host: string,
  opts: { source?: string | undefined; refused?: string | undefined } = {},
): RuntimeMount | undefined {
  if (!runtime.compiled || runtime.contentId === undefined || opts.refused !== undefined) return undefined;
  if (!onLocalSocket(host)) return undefined;
  return { source: opts.source ?? runtime.dir, contentId: runtime.contentId };
}
