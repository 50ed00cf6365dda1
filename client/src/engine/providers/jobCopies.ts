/**
 * A job's copies into its containers, packed once. Every rollout of a job
 * copies the same runtime and environment folder (per phase: the actor's copy
 * leaves out what is the verifier's only), so the folders are walked, read and
 * archived once per job and each container gets the same bytes
 * (docs/substrate-copy.md). The bytes are the job's snapshot of the folder:
 * an edit made while the job runs reaches the next job, not half of this one.
 */
import { Readable } from 'node:stream';
import { describeCopy, packCopy, type CopyItem, type PackedCopy } from '../docker/container';
import { ContainerError } from '../docker/errors';

/** Above this, a copy is packed afresh for each container rather than held in memory. */
export const KEPT_COPY_MAX_BYTES = 8 * 1024 * 1024;

export class JobCopies {
  private readonly kept = new Map<string, Promise<PackedCopy>>();

  constructor(private readonly maxBytes = KEPT_COPY_MAX_BYTES) {}

  /**
   * The packed copy of `items` (plus empty `folders`) under `key`, which must
   * name everything that decides what the copy holds. A failed pack is not kept.
   */
  pack(key: string, items: CopyItem[], folders: string[] = []): Promise<PackedCopy> {
    let packed = this.kept.get(key);
    if (!packed) {
      packed = this.packOnce(key, items, folders);
      this.kept.set(key, packed);
      packed.catch(() => this.kept.delete(key));
    }
    return packed;
  }

  private async packOnce(key: string, items: CopyItem[], folders: string[]): Promise<PackedCopy> {
    const packed = await packCopy(items, folders);
    // A large folder streams from disk each time: holding it would cost more memory than its walk costs CPU.
    if (packed.bytes > this.maxBytes) {
      this.kept.delete(key);
      return packed;
    }
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of packed.open()) chunks.push(chunk as Buffer);
    } catch (err) {
      throw new ContainerError(`reading ${describeCopy(items)} for the copy failed: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const archive = Buffer.concat(chunks);
    return { items, bytes: packed.bytes, open: () => Readable.from([archive]) };
  }
}
