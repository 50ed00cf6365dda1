/**
 * Finds the files the index reads (Python, JSON task files, Harbor's
 * task.toml) under a folder, skipping the folders nobody authors in.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { DEFAULT_MAX_FILE_BYTES, fileKind, type FileContent } from './analyzer';

export const DEFAULT_EXCLUDED_DIRS: readonly string[] = [
  'node_modules',
  '.git',
  '.hg',
  '.svn',
  '.venv',
  'venv',
  '__pycache__',
  'dist',
  '.mypy_cache',
  '.pytest_cache',
  '.tox',
];

export async function listIndexableFiles(
  roots: readonly string[],
  excluded: readonly string[] = DEFAULT_EXCLUDED_DIRS,
): Promise<string[]> {
  const skip = new Set(excluded);
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return; // unreadable folder: nothing to index there
    }
    const subdirs: string[] = [];
    for (const e of entries) {
      if (e.isDirectory()) {
        if (!skip.has(e.name)) subdirs.push(join(dir, e.name));
      } else if (e.isFile() && fileKind(e.name)) out.push(join(dir, e.name));
    }
    for (const d of subdirs) await walk(d);
  };
  for (const root of roots) {
    const s = await stat(root).catch(() => undefined);
    if (s?.isDirectory()) await walk(root);
    else if (s?.isFile() && fileKind(basename(root))) out.push(root);
  }
  return out;
}

/**
 * Reads files with bounded concurrency; unreadable files are left out and
 * files over `maxBytes` are not read at all (only their size is reported).
 */
export async function readFiles(
  paths: readonly string[],
  concurrency = 32,
  maxBytes = DEFAULT_MAX_FILE_BYTES,
): Promise<[string, FileContent][]> {
  const out = new Array<[string, FileContent] | undefined>(paths.length);
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const i = next++;
      const p = paths[i]!;
      try {
        const size = (await stat(p)).size;
        out[i] = [p, size > maxBytes ? { oversizedBytes: size } : await readFile(p)];
      } catch {
        out[i] = undefined;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, paths.length) }, worker));
  return out.filter((x): x is [string, FileContent] => x !== undefined);
}
