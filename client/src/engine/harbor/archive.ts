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
import { ArchiveTooLargeError } from '../docker/tar';
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

/**
 * How a copy out went when the container's files may be the agent's: one
 * over the extraction's limit (docker/tar.ts) is reported, not thrown, so
 * that what the agent left cannot turn a run into an error
 * (docs/security.md).
 */
export type BoundedCopy =
  | { status: 'copied'; copy: { path: string; dispose: () => void } }
  | { status: 'missing' }
  | { status: 'too-large'; why: string };

export async function boundedArchiveCopy(container: ManagedContainer, src: string): Promise<BoundedCopy> {
  try {
    const copy = await archiveCopy(container, src);
    return copy ? { status: 'copied', copy } : { status: 'missing' };
  } catch (err) {
    if (err instanceof ArchiveTooLargeError) return { status: 'too-large', why: err.message };
    throw err;
  }
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
