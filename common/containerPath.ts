/**
 * Paths inside a container (a task's workdir, a declared artifact, a PATH entry): POSIX, whatever the host's
 * own paths are. Shared by the language server's reading of task.toml and the engine's runs.
 */
import { posix } from 'node:path';

/** An absolute container path without `.` or `..` steps and without a trailing slash (`/` stays `/`). */
export function normalContainerPath(path: string): string {
  return posix.normalize(path).replace(/\/+$/, '') || '/';
}

/** Whether `path` is `folder` or lies below it; both normalised absolute container paths. */
export function atOrBelow(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder === '/' ? '/' : `${folder}/`);
}
