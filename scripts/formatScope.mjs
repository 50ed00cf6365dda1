// Which paths are still waiting for the one repository-wide Prettier pass.
// Shared by eslint.config.mjs (long code lines are Prettier's to wrap there)
// and scripts/lint.mjs (Prettier skips them until `--format-all`).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const pendingFile = join(root, '.format-pending');

/** The pending paths, as written (gitignore style: a trailing `/` is a folder). */
export function pendingPaths() {
  if (!existsSync(pendingFile)) return [];
  return readFileSync(pendingFile, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** The pending paths as ESLint `files` globs. */
export function pendingFormatGlobs() {
  return pendingPaths().map((p) => (p.endsWith('/') ? `${p}**` : p));
}
