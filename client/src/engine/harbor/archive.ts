/**
 * Reads files out of a container the agent controlled without running any
 * program inside it (docs/harbor.md, "What the agent cannot forge"): every read
 * is a Docker archive copy (getArchive), so a replaced `cat`, `test` or `sh`
 * in the container changes nothing. Copies land in a private host folder
 * first; symlinks in them are never followed on the host.
 */
import { lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { dockerStatus } from '../docker/errors';
import type { ManagedContainer } from '../docker/types';

/** True when the failure is the daemon saying the path does not exist. */
function isMissing(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; e && depth < 4; depth++) {
    if (dockerStatus(e) === 404) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Copies container path `src` into a fresh private host folder and returns the
 * copy's path (`<folder>/<basename>`), or undefined when `src` does not exist.
 * The caller owns the folder (`dispose`).
 */
export async function archiveCopy(
  container: ManagedContainer,
  src: string,
): Promise<{ path: string; dispose: () => void } | undefined> {
  const staging = mkdtempSync(join(tmpdir(), 'hud-studio-archive-'));
  const dispose = (): void => rmSync(staging, { recursive: true, force: true });
  try {
    await container.copyOut(src, staging);
  } catch (err) {
    dispose();
    if (isMissing(err)) return undefined;
    throw err;
  }
  return { path: join(staging, posix.basename(src) || 'root'), dispose };
}

/** Whether `path` exists in the container (a symlink counts, and is not followed). */
export async function archiveExists(container: ManagedContainer, path: string): Promise<boolean> {
  const copy = await archiveCopy(container, path);
  copy?.dispose();
  return copy !== undefined;
}

/** The names directly inside a container folder; undefined when it does not exist. */
export async function archiveList(container: ManagedContainer, dir: string): Promise<string[] | undefined> {
  const copy = await archiveCopy(container, dir);
  if (!copy) return undefined;
  try {
    const st = lstatSync(copy.path, { throwIfNoEntry: false });
    return st?.isDirectory() ? readdirSync(copy.path).sort() : [posix.basename(dir)];
  } finally {
    copy.dispose();
  }
}

/** Reads a regular file from a host copy; a symlink or anything else is refused (undefined). */
export function readRegularFile(path: string): string | undefined {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st?.isFile()) return undefined;
  return readFileSync(path, 'utf8');
}
