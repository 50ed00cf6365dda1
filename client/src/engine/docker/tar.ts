/**
 * Tar archives in and out of Docker: the daemon's build context, putArchive
 * (copy in) and getArchive (copy out) all speak tar. Files are streamed, never
 * held whole in memory, so a large environment folder costs no RAM.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type BigIntStats } from 'node:fs';
import { lstat, mkdir, readdir, readlink, rename, rm, symlink } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar-stream';

export interface FolderEntry {
  /** Path relative to the walked root, `/`-separated. */
  rel: string;
  abs: string;
  type: 'file' | 'directory' | 'symlink';
  mode: number;
  size: number;
  mtime: Date;
  /**
   * The entry's identity and state on disk, from the same `lstat`: a copy
   * kept between containers is reused only while these stay as they were
   * (providers/jobCopies.ts). The change time moves with any write or
   * chmod; the inode moves when an editor saves by replacing the file.
   */
  ino: bigint;
  ctimeNs: bigint;
  mtimeNs: bigint;
  linkname?: string;
}

/** The fields of a {@link FolderEntry} that one `lstat` (with bigint times) gives. */
export function statFields(
  st: BigIntStats,
): Pick<FolderEntry, 'mode' | 'size' | 'mtime' | 'ino' | 'ctimeNs' | 'mtimeNs'> {
  return {
    mode: Number(st.mode & 0o7777n),
    size: Number(st.size),
    mtime: st.mtime,
    ino: st.ino,
    ctimeNs: st.ctimeNs,
    mtimeNs: st.mtimeNs,
  };
}

/**
 * Lists a folder depth-first in sorted order (so hashes are stable). `skip`
 * gets each relative path and whether it is a directory; returning true
 * leaves it (and, for a directory, everything below) out.
 */
export async function walkFolder(
  root: string,
  skip?: (rel: string, isDir: boolean) => boolean,
): Promise<FolderEntry[]> {
  const out: FolderEntry[] = [];
  const visit = async (dir: string): Promise<void> => {
    const names = (await readdir(dir)).sort();
    for (const name of names) {
      const abs = join(dir, name);
      const rel = relative(root, abs).split(sep).join('/');
      const st = await lstat(abs, { bigint: true });
      const isDir = st.isDirectory();
      if (skip?.(rel, isDir)) continue;
      const base = { rel, abs, ...statFields(st) };
      if (isDir) {
        out.push({ ...base, type: 'directory', size: 0 });
        await visit(abs);
      } else if (st.isSymbolicLink()) {
        out.push({ ...base, type: 'symlink', size: 0, linkname: await readlink(abs) });
      } else if (st.isFile()) {
        out.push({ ...base, type: 'file' });
      }
      // Sockets, fifos and devices cannot travel in a build context or a copy.
    }
  };
  await visit(root);
  return out;
}

/**
 * A tar stream of `entries`, each named `prefix + rel`. `parents` are extra
 * directory entries written first (folders to create at the destination).
 */
export function packEntries(entries: FolderEntry[], opts: { prefix?: string; parents?: string[] } = {}): Readable {
  const pack = tar.pack();
  const prefix = opts.prefix ?? '';
  const fill = async (): Promise<void> => {
    for (const dir of opts.parents ?? []) {
      await addEntry(pack, { name: `${dir}/`, type: 'directory', mode: 0o755, mtime: new Date() });
    }
    for (const e of entries) {
      const header = { name: prefix + e.rel, mode: e.mode, mtime: e.mtime };
      if (e.type === 'directory') await addEntry(pack, { ...header, name: `${header.name}/`, type: 'directory' });
      else if (e.type === 'symlink') await addEntry(pack, { ...header, type: 'symlink', linkname: e.linkname ?? '' });
      else await addEntry(pack, { ...header, type: 'file', size: e.size }, e.abs);
    }
    pack.finalize();
  };
  fill().catch((err: unknown) => pack.destroy(err instanceof Error ? err : new Error(String(err))));
  return pack;
}

function addEntry(pack: tar.Pack, header: tar.Headers, file?: string): Promise<void> {
  return new Promise((resolveEntry, reject) => {
    const sink = pack.entry(header, (err) => (err ? reject(err) : resolveEntry()));
    if (file === undefined) return;
    const src = createReadStream(file);
    src.on('error', (err) => {
      sink.destroy(err);
      reject(err);
    });
    src.pipe(sink);
  });
}

/**
 * What one copy out of a container may bring to the host. The container's
 * files may be the agent's: a sparse file costs it no space but would stream
 * its whole declared size onto the host's disk (docs/security.md).
 */
export const MAX_EXTRACT_BYTES = 2 * 1024 ** 3;
export const MAX_EXTRACT_ENTRIES = 200_000;

/** An archive that holds more than an extraction's budget; what came before the entry stays on disk. */
export class ArchiveTooLargeError extends Error {
  constructor(
    readonly entry: string,
    readonly limit: string,
  ) {
    super(`its entry "${entry}" passes the limit of ${limit} a copy out of a container may bring`);
    this.name = 'ArchiveTooLargeError';
  }
}

export interface ExtractLimits {
  maxBytes?: number;
  maxEntries?: number;
}

/**
 * Extracts a tar stream into `hostDir`. Entry names that would land outside
 * it (absolute, `..`, or through a symlink the archive itself made) are
 * refused, because the archive comes from a container the task controlled.
 * Each file is written to a temporary name and renamed, so no half-written
 * file is ever visible. A file whose declared size would take the archive
 * past `maxBytes` (or an entry past `maxEntries`) stops the extraction
 * before any of its bytes are read.
 */
export async function extractTar(source: Readable, hostDir: string, limits: ExtractLimits = {}): Promise<string[]> {
  const maxBytes = limits.maxBytes ?? MAX_EXTRACT_BYTES;
  const maxEntries = limits.maxEntries ?? MAX_EXTRACT_ENTRIES;
  let bytes = 0;
  let entries = 0;
  const root = resolve(hostDir);
  await mkdir(root, { recursive: true });
  const written: string[] = [];
  const extract = tar.extract();
  const done = pipeline(source, extract);
  try {
    for await (const entry of extract) {
      const h = entry.header;
      bytes += h.size ?? 0;
      if (++entries > maxEntries) throw new ArchiveTooLargeError(h.name, `${maxEntries} entries`);
      if (bytes > maxBytes) throw new ArchiveTooLargeError(h.name, `${maxBytes} bytes`);
      const target = resolve(root, h.name);
      if (target !== root && !target.startsWith(root + sep)) {
        entry.resume();
        throw new Error(`archive entry "${h.name}" points outside ${root}`);
      }
      await refuseSymlinkParents(root, target);
      if (h.type === 'directory') {
        await mkdir(target, { recursive: true, mode: (h.mode ?? 0o755) | 0o700 });
        entry.resume();
      } else if (h.type === 'file' || h.type === 'contiguous-file') {
        await mkdir(dirname(target), { recursive: true });
        // A name the archive cannot guess, made new (`wx` follows no link): the archive names everything else
        // here, and a link it left under a guessable partial name took the file's bytes onto a host file.
        const tmp = `${target}.hud-studio-partial-${randomBytes(8).toString('hex')}`;
        await pipeline(entry, createWriteStream(tmp, { mode: (h.mode ?? 0o644) & 0o777, flags: 'wx' }));
        await rename(tmp, target);
        written.push(target);
      } else if (h.type === 'symlink' && h.linkname) {
        await mkdir(dirname(target), { recursive: true });
        await rm(target, { force: true });
        await symlink(h.linkname, target);
        entry.resume();
      } else {
        // Hard links, devices and fifos are not needed to inspect artifacts.
        entry.resume();
      }
    }
  } catch (err) {
    source.destroy();
    await done.catch(() => undefined);
    throw err;
  }
  await done;
  return written;
}

async function refuseSymlinkParents(root: string, target: string): Promise<void> {
  let dir = dirname(target);
  while (dir.length > root.length) {
    const st = await lstat(dir).catch(() => undefined);
    if (st?.isSymbolicLink())
      throw new Error(
        `archive entry ${relative(root, target)} would be written through symlink ${relative(root, dir)}`,
      );
    dir = dirname(dir);
  }
}
