/**
 * The bundled runtime as it goes into a container: its sources and, beside
 * them, one table of their code compiled once by the host's python3, so that
 * a container's interpreter imports the SDK without compiling it first
 * (runtime/python/hud_studio/bytecode.py, docs/substrate-copy.md).
 *
 * The folder is a snapshot: the sources are written from the very bytes that
 * were hashed and compiled, and it lives under a name derived from that hash
 * in the user's cache, so a changed runtime gets a folder of its own and a
 * later process finds the compiled one without running Python at all.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { walkFolder, type FolderEntry } from './docker/tar';

/** Where the compiled runtime came from, for logs and tests. */
export interface RuntimeCopySource {
  /** The folder to copy into a container. */
  readonly dir: string;
  /** Whether `dir` holds the compiled table beside the sources (false: the sources as they are). */
  readonly compiled: boolean;
  /** Why there is no bytecode, when there is none. */
  readonly reason?: string;
  /**
   * The compiled folder's name, also written in it as {@link CONTENT_ID_FILE}:
   * a container that mounts the folder checks that it sees this very content
   * (providers/runtimeMount.ts). Only for a compiled folder in the cache.
   */
  readonly contentId?: string;
}

/** In the compiled folder: its own name, which a container that mounts it reads back. */
export const CONTENT_ID_FILE = '.content-id';
// Part of the folder's name: a folder laid out another way (before the content id, private mode) is another folder.
const LAYOUT = 'layout 2: content id, readable by every user of a container';

export interface RuntimeBytecodeOptions {
  /** The runtime's sources (runtime/python). */
  sourceDir: string;
  /** Where the runtime lands in a container: the path the table names as each module's source. */
  containerDir: string;
  /** Entries of the sources left out of the copy (and of the hash). */
  skip?: (rel: string, isDir: boolean) => boolean;
  /** Default: $XDG_CACHE_HOME/hud-studio, else ~/.cache/hud-studio. */
  cacheRoot?: string;
  /** The host interpreter that compiles (default python3 on PATH). */
  python?: string;
}

// One table of every module's code, read by runtime/python/hud_studio/bytecode.py in the container:
// MAGIC_NUMBER + marshal({module: (path in the container, marshalled code)}), compiled as the import
// system compiles a source file. It is named for the interpreter's cache tag; another version finds
// no table of its own and imports from the sources.
const COMPILE_SCRIPT = `
import importlib.util, marshal, os, sys
root, container_dir = sys.argv[1], sys.argv[2]
table = {}
for folder, subfolders, files in os.walk(root):
    subfolders.sort()
    for name in sorted(files):
        if not name.endswith(".py"):
            continue
        rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
        parts = rel[:-3].split("/")
        if parts[-1] == "__init__":
            parts.pop()
        if not parts or not all(p.isidentifier() for p in parts):
            continue
        origin = container_dir + "/" + rel
        with open(os.path.join(root, rel), "rb") as f:
            code = compile(f.read(), origin, "exec", dont_inherit=True)
        table[".".join(parts)] = (origin, marshal.dumps(code))
folder = os.path.join(root, ".bytecode")
os.mkdir(folder)
path = os.path.join(folder, sys.implementation.cache_tag + ".bin")
with open(path, "wb") as f:
    f.write(importlib.util.MAGIC_NUMBER + marshal.dumps(table))
os.chmod(folder, 0o755)
os.chmod(path, 0o644)
`;
const COMPILE_TIMEOUT_MS = 60_000;

const made = new Map<string, Promise<RuntimeCopySource>>();

/** The runtime's folder to copy, compiled at most once per process (and once per runtime version on disk). */
export function runtimeWithBytecode(opts: RuntimeBytecodeOptions): Promise<RuntimeCopySource> {
  const key = `${opts.sourceDir}\0${opts.containerDir}\0${opts.cacheRoot ?? ''}\0${opts.python ?? ''}`;
  let found = made.get(key);
  if (!found) {
    found = compiledRuntime(opts).catch((err: unknown): RuntimeCopySource => ({
      dir: opts.sourceDir,
      compiled: false,
      reason: (err as Error).message,
    }));
    made.set(key, found);
  }
  return found;
}

export function defaultCacheRoot(): string {
  const xdg = process.env['XDG_CACHE_HOME'];
  return join(xdg && xdg.startsWith('/') ? xdg : join(homedir(), '.cache'), 'hud-studio');
}

async function compiledRuntime(opts: RuntimeBytecodeOptions): Promise<RuntimeCopySource> {
  const entries = await walkFolder(opts.sourceDir, opts.skip);
  const snapshot = await readSnapshot(entries);
  // The script is part of the name: a table made another way is another folder.
  const hash = createHash('sha256').update(LAYOUT).update(COMPILE_SCRIPT).update(opts.containerDir).update('\0');
  for (const e of snapshot) {
    hash.update(`${e.type} ${e.rel} ${e.mode.toString(8)}\0`);
    if (e.bytes) hash.update(e.bytes);
  }
  const root = join(opts.cacheRoot ?? defaultCacheRoot(), 'runtime-bytecode');
  const contentId = hash.digest('hex').slice(0, 24);
  const dir = join(root, contentId);
  if (await exists(dir)) return { dir, compiled: true, contentId };

  // Private to the user: whatever is here goes into containers and runs as their server.
  await mkdir(root, { recursive: true, mode: 0o700 });
  const staging = `${dir}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await mkdir(staging, { mode: 0o700 });
    for (const e of snapshot) {
      const path = join(staging, e.rel);
      if (e.type === 'directory') await mkdir(path, { mode: e.mode });
      else await writeFile(path, e.bytes ?? new Uint8Array(), { mode: e.mode, flag: 'wx' });
      await chmod(path, e.mode);
    }
    await compile(opts.python ?? 'python3', staging, opts.containerDir);
    await writeFile(join(staging, CONTENT_ID_FILE), `${contentId}\n`, { mode: 0o644, flag: 'wx' });
    // Only the parent is private (0700, above): a container may mount this folder alone, and its
    // server may run as any user of the image. chmod, unlike mkdir's mode, is not cut by the umask.
    await chmod(staging, 0o755);
    await rename(staging, dir).catch(async (err: unknown) => {
      // Another process compiled the same runtime first: its folder is as good as ours.
      if (!(await exists(dir))) throw err;
    });
    return { dir, compiled: true, contentId };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

interface SnapshotEntry {
  rel: string;
  type: 'file' | 'directory';
  mode: number;
  bytes?: Buffer;
}

async function readSnapshot(entries: FolderEntry[]): Promise<SnapshotEntry[]> {
  const out: SnapshotEntry[] = [];
  for (const e of entries) {
    if (e.type === 'symlink') throw new Error(`the runtime holds a symlink (${e.rel}); it is copied as it is`);
    // Readable by every user of a container whatever the checkout's umask; executables stay executable.
    if (e.type === 'directory') out.push({ rel: e.rel, type: 'directory', mode: 0o755 });
    else out.push({ rel: e.rel, type: 'file', mode: e.mode & 0o111 ? 0o755 : 0o644, bytes: await readFile(e.abs) });
  }
  return out;
}

function compile(python: string, dir: string, containerDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // -I: none of the user's PYTHON* variables or site packages take part in the compile.
    execFile(
      python,
      ['-I', '-c', COMPILE_SCRIPT, dir, containerDir],
      { timeout: COMPILE_TIMEOUT_MS, maxBuffer: 1 << 20 },
      (err, _stdout, stderr) => {
        if (!err) resolve();
        else reject(new Error(`${python} could not compile the runtime: ${stderr.trim() || err.message}`));
      },
    );
  });
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
