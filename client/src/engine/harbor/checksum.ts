/**
 * Harbor's task checksum (docs/harbor.md): the Dirhash standard over the whole
 * task directory with SHA-256 and its default options: every file counts
 * (hidden ones too), symlinks are followed, empty folders do not count. A
 * folder's hash is the SHA-256 of its entries' descriptors ("data:<file hash>"
 * or "dirhash:<folder hash>", then "name:<name>", joined by NUL), sorted and
 * joined by two NULs.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';

export class ChecksumError extends Error {}

export function harborChecksum(taskDir: string): string {
  const hash = dirHash(taskDir, new Set());
  if (hash === undefined) throw new ChecksumError(`${taskDir}: nothing to hash`);
  return hash;
}

/** undefined for a folder with no file anywhere below it. */
function dirHash(dir: string, onPath: Set<string>): string | undefined {
  const real = realpathSync(dir);
  if (onPath.has(real)) throw new ChecksumError(`${dir}: a symlink makes a cycle`);
  onPath.add(real);
  const descriptors: string[] = [];
  for (const name of readdirSync(dir)) {
    const abs = join(dir, name);
    const st = statSync(abs, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) {
      const sub = dirHash(abs, onPath);
      if (sub !== undefined) descriptors.push(`dirhash:${sub}\0name:${name}`);
    } else if (st.isFile()) {
      descriptors.push(`data:${createHash('sha256').update(readFileSync(abs)).digest('hex')}\0name:${name}`);
    }
  }
  onPath.delete(real);
  if (descriptors.length === 0) return undefined;
  return createHash('sha256').update(descriptors.sort().join('\0\0'), 'utf8').digest('hex');
}
