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

const FLUSH_CHARS = 256 * 1024;

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
  private pending: string[] = [];
  private pendingChars = 0;
  private failed = false;

  constructor(
    path: string,
    private readonly onFailure: (why: string) => void,
  ) {
    this.fd = openSync(path, 'w');
  }

  write(entry: TraceLog): void {
    if (this.failed) return;
    const line = entry.stream === 'stdout' ? `${entry.text}\n` : `[${entry.stream}] ${entry.text}\n`;
    this.pending.push(line);
    this.pendingChars += line.length;
    if (this.pendingChars >= FLUSH_CHARS) this.flush();
  }

  close(): void {
    this.flush();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private flush(): void {
    if (this.fd === undefined || this.failed || !this.pending.length) return;
    const text = this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    try {
      writeSync(this.fd, text);
    } catch (err) {
      this.failed = true;
      this.onFailure(`the whole log beside the trace is incomplete: ${(err as Error).message}`);
    }
  }
}
