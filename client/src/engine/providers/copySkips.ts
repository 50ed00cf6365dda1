/**
 * Folders never worth copying into a substrate: version control, package
 * and bytecode caches, virtual environments, and HUD Studio's own traces.
 * Every provider copies an environment's folder (and the bundled runtime)
 * through this one list, so a substrate looks the same on Docker, Compose
 * and the local runtime (docs/substrate-copy.md).
 */
const SKIPPED_DIRS: ReadonlySet<string> = new Set([
  '.git',
  'node_modules',
  '.hud-studio',
  '__pycache__',
  '.venv',
  '.mypy_cache',
  '.pytest_cache',
]);

/** Whether a folder of this name (its last path segment) stays out of every copy. */
export function isSkippedDirName(name: string): boolean {
  return SKIPPED_DIRS.has(name);
}

/** A copy filter over `/`-separated relative paths: skips the folders above, wherever they sit. */
export function skipCopied(rel: string, isDir: boolean): boolean {
  return isDir && SKIPPED_DIRS.has(rel.slice(rel.lastIndexOf('/') + 1));
}
