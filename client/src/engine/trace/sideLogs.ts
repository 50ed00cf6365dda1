/**
 * Side files that hold a phase's whole log once the trace keeps only its
 * head and tail: written under `<traceDir>/.<rolloutId>.logs.partial/` while
 * the rollout runs, and renamed to `<trace file>.logs/` beside the trace
 * (docs/reliability.md). Writes are batched and synchronous, so memory stays
 * bounded whatever the rollout prints; a write that fails (a full or
 * read-only disk) is recorded, never thrown, and the trace says so.
 */
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LogSpill } from './boundedLog';
import { BatchedFile } from '../output/batchedFile';
import type { PhaseName, TraceLog } from '../../../../common/trace/schema';

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

/** A phase's whole log: each line as the rollout log shows it, `[stream] ` before lines not from stdout. */
class SideFile implements LogSpill {
  private readonly file: BatchedFile;

  constructor(path: string, onFailure: (why: string) => void) {
    this.file = new BatchedFile(path, (why) => onFailure(`the whole log beside the trace is incomplete: ${why}`));
  }

  write(entry: TraceLog): void {
    if (entry.stream === 'stdout') this.file.write(entry.text, '\n');
    else this.file.write('[', entry.stream, '] ', entry.text, '\n');
  }

  close(): void {
    this.file.close();
  }
}
