/**
 * Side files that hold a phase's whole log once the trace keeps only its
 * head and tail: written under `<traceDir>/.<rolloutId>.logs.partial/` while
 * the rollout runs, and renamed to `<trace file>.logs/` beside the trace
 * (docs/reliability.md). Writes are batched and synchronous, so memory stays
 * bounded whatever the rollout prints; a write that fails (a full or
 * read-only disk) is recorded, never thrown, and the trace says so.
 */
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { LogSpill } from './boundedLog';
import type { PhaseName, TraceLog } from '../../../../common/trace/schema';

const FLUSH_BYTES = 256 * 1024;

export class SideLogs {
  private readonly dir: string;
  private readonly files = new Map<PhaseName, SideFile>();
  private failure: string | undefined;

  constructor(
    private readonly traceDir: string,
    rolloutId: string,
  ) {
    this.dir = join(traceDir, `.${rolloutId}.logs.partial`);
  }

  /** A spill for one phase; undefined when the folder cannot be made. */
  open(phase: PhaseName): LogSpill | undefined {
    if (this.failure) return undefined;
    try {
      mkdirSync(this.dir, { recursive: true });
      const file = new SideFile(join(this.dir, `${phase}.log`), (why) => (this.failure ??= why));
      this.files.set(phase, file);
      return file;
    } catch (err) {
      this.failure = `cannot write the whole ${phase} log beside the trace: ${(err as Error).message}`;
      return undefined;
    }
  }

  /** Why some of a whole log could not be kept, if so. */
  get error(): string | undefined {
    return this.failure;
  }

  /**
   * Flushes and moves the side files beside the trace named `traceName`;
   * returns each phase's file relative to the trace folder.
   */
  commit(traceName: string): Map<PhaseName, string> {
    const out = new Map<PhaseName, string>();
    if (!this.files.size) return out;
    for (const f of this.files.values()) f.close();
    const dirName = `${traceName.replace(/\.hudtrace\.json$/, '')}.logs`;
    try {
      renameSync(this.dir, join(this.traceDir, dirName));
      for (const phase of this.files.keys()) out.set(phase, `${dirName}/${phase}.log`);
    } catch (err) {
      this.failure ??= `cannot move the whole logs beside the trace: ${(err as Error).message}`;
    }
    return out;
  }

  /** Removes side files that will never belong to a trace. */
  discard(): void {
    for (const f of this.files.values()) f.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

class SideFile implements LogSpill {
  private fd: number | undefined;
  /** Lines wait as bytes, not strings: strings held until the flush would be promoted, and a flood fills the heap. */
  private readonly pending = Buffer.allocUnsafe(FLUSH_BYTES);
  private used = 0;
  private failed = false;

  constructor(
    path: string,
    private readonly onFailure: (why: string) => void,
  ) {
    this.fd = openSync(path, 'w');
  }

  write(entry: TraceLog): void {
    if (this.failed) return;
    const prefix = entry.stream === 'stdout' ? '' : `[${entry.stream}] `;
    const most = (prefix.length + entry.text.length) * 3 + 1;
    if (this.used + most > FLUSH_BYTES) {
      this.flush();
      if (most > FLUSH_BYTES) {
        this.writeOut(Buffer.from(`${prefix}${entry.text}\n`, 'utf8'));
        return;
      }
    }
    if (prefix) this.used += this.pending.write(prefix, this.used, 'utf8');
    this.used += this.pending.write(entry.text, this.used, 'utf8');
    this.pending[this.used++] = 0x0a;
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
      this.onFailure(`the whole log beside the trace is incomplete: ${(err as Error).message}`);
    }
  }
}
