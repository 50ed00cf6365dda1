/**
 * A file that receives output as it arrives, whatever its size, in bounded
 * memory (docs/reliability.md, "Output is bounded"): text is gathered as
 * bytes in one fixed buffer and written synchronously when it fills, so a
 * flood never queues in the heap (a stream's queue grows when the producer
 * outruns the disk, and held strings get promoted). A write that fails (a
 * full or read-only disk) is reported once and the rest is dropped; it never
 * throws.
 */
import { closeSync, openSync, writeSync } from 'node:fs';

const FLUSH_BYTES = 256 * 1024;

export class BatchedFile {
  private fd: number | undefined;
  private readonly pending = Buffer.allocUnsafe(FLUSH_BYTES);
  private used = 0;
  private failed = false;

  /** Opens (creates or truncates) `path`; that may throw, as opening any file does. */
  constructor(
    path: string,
    private readonly onFailure: (why: string) => void,
  ) {
    this.fd = openSync(path, 'w');
  }

  /** Appends the texts, in order. */
  write(...texts: string[]): void {
    if (this.failed) return;
    let most = 0;
    for (const t of texts) most += t.length * 3;
    if (this.used + most > FLUSH_BYTES) {
      this.flush();
      if (most > FLUSH_BYTES) {
        this.writeOut(Buffer.from(texts.join(''), 'utf8'));
        return;
      }
    }
    for (const t of texts) this.used += this.pending.write(t, this.used, 'utf8');
  }

  close(): void {
    this.flush();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private flush(): void {
    const used = this.used;
    this.used = 0;
    if (used) this.writeOut(this.pending.subarray(0, used));
  }

  private writeOut(data: Buffer): void {
    if (this.fd === undefined || this.failed) return;
    try {
      writeSync(this.fd, data);
    } catch (err) {
      this.failed = true;
      this.onFailure((err as Error).message);
    }
  }
}
