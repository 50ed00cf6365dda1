/**
 * A job's copies into its containers, packed once while the folders stay as
 * they are. Every rollout of a job copies the same runtime and environment
 * folder (per phase: the actor's copy leaves out what is the verifier's
 * only), so each container's copy walks the folders to see whether anything
 * changed (names, types, modes, sizes, inodes, change and modification
 * times) and reuses the archive packed for an earlier container when nothing
 * did, instead of reading and archiving every file again (docs/substrate-copy.md).
 * An edit made mid-job (a grader changed between two regrades of a batch)
 * reaches the next container.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  describeCopy,
  listCopy,
  packListed,
  type CopyItem,
  type ListedCopy,
  type PackedCopy,
} from '../docker/container';
import { ContainerError } from '../docker/errors';

/** Above this, a copy is packed afresh for each container rather than held in memory. */
export const KEPT_COPY_MAX_BYTES = 8 * 1024 * 1024;

interface Kept {
  /** What the folders looked like when they were packed. */
  stamp: string;
  packed: Promise<PackedCopy>;
}

export class JobCopies {
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly maxBytes = KEPT_COPY_MAX_BYTES) {}

  /**
   * The packed copy of `items` (plus empty `folders`) under `key`, which must
   * name everything that decides what the copy holds besides the files
   * themselves (e.g. the phase, when it decides what is left out). A failed
   * pack is not kept; a missing folder is reported with its path.
   */
  async pack(key: string, items: CopyItem[], folders: string[] = []): Promise<PackedCopy> {
    // One walk, one lstat per entry: the same listing stamps the copy and, when it changed, packs it.
    const listed = await listCopy(items, folders);
    const stamp = stampOf(listed);
    const kept = this.kept.get(key);
    if (kept?.stamp === stamp) return kept.packed;
    const packed = this.packOnce(listed);
    const entry = { stamp, packed };
    this.kept.set(key, entry);
    packed.catch(() => {
      if (this.kept.get(key) === entry) this.kept.delete(key);
    });
    return packed;
  }

  private async packOnce(listed: ListedCopy): Promise<PackedCopy> {
    const packed = packListed(listed);
    // A large folder streams from disk each time: holding its bytes would cost more memory than its reading
    // costs CPU. Only its listing is kept, which the next container's stamp still checks.
    if (packed.bytes > this.maxBytes) return packed;
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of packed.open()) chunks.push(chunk as Buffer);
    } catch (err) {
      throw new ContainerError(`reading ${describeCopy(listed.items)} for the copy failed: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const archive = Buffer.concat(chunks);
    return { items: listed.items, bytes: packed.bytes, open: () => Readable.from([archive]) };
  }
}

/**
 * A digest of every entry the copy would hold and of its state on disk, as
 * the listing's `lstat` saw it. The change time moves with any write or
 * chmod and cannot be set back; the inode moves when an editor saves by
 * replacing the file.
 */
function stampOf(listed: ListedCopy): string {
  const hash = createHash('sha256').update(listed.parents.join('\0')).update('\0\0');
  for (const item of listed.items) hash.update(`${item.hostPath}\0${item.dest}\0`);
  hash.update('\0');
  for (const e of listed.entries) {
    hash.update(
      `${e.abs}\0${e.rel}\0${e.type}\0${e.mode}\0${e.size}\0${e.ino}\0${e.ctimeNs}\0${e.mtimeNs}\0${e.linkname ?? ''}\0`,
    );
  }
  return hash.digest('hex');
}
