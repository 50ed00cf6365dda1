/**
 * The stored rollouts in a trace folder that the editor can offer to grade
 * again: every trace file except regrade traces (a regrade's original is the
 * one to grade again), read once per file version. The CodeLens counts them
 * per template (docs/grader-workbench.md, "In the editor"). No VS Code here.
 */
import { statSync } from 'node:fs';
import type { WorkspaceIndex } from '../../common/lspMessages';
import type { Trace } from '../../common/trace/schema';
import { listTraceFiles, readTrace } from './engine/trace/store';

export interface StoredRun {
  path: string;
  trace: Trace;
}

export class StoredTraces {
  /** path -> the trace as of that modification time (null: unreadable, warned once). */
  private readonly cache = new Map<string, { mtimeMs: number; trace: Trace | null }>();
  private runs: StoredRun[] = [];

  constructor(private readonly warn: (line: string) => void = () => undefined) {}

  /** Reads the folders again; unchanged files come from the cache. */
  scan(dirs: string[]): StoredRun[] {
    const seen = new Set<string>();
    const runs: StoredRun[] = [];
    for (const dir of dirs) {
      for (const path of listTraceFiles(dir)) {
        seen.add(path);
        let mtimeMs: number;
        try {
          mtimeMs = statSync(path).mtimeMs;
        } catch {
          continue; // deleted since it was listed
        }
        let hit = this.cache.get(path);
        if (!hit || hit.mtimeMs !== mtimeMs) {
          hit = { mtimeMs, trace: this.read(path) };
          this.cache.set(path, hit);
        }
        if (hit.trace && !hit.trace.regrade) runs.push({ path, trace: hit.trace });
      }
    }
    for (const path of this.cache.keys()) if (!seen.has(path)) this.cache.delete(path);
    this.runs = runs;
    return runs;
  }

  all(): StoredRun[] {
    return this.runs;
  }

  /** The stored rollout with this id, e.g. the original of a regrade. */
  byId(rolloutId: string): StoredRun | undefined {
    return this.runs.find((r) => r.trace.rolloutId === rolloutId);
  }

  private read(path: string): Trace | null {
    try {
      return readTrace(path);
    } catch (err) {
      this.warn(`skipped trace ${path}: ${(err as Error).message}`);
      return null;
    }
  }
}

/** Task references whose grading runs this template: as the task's own template or as its verifier. */
export function tasksGradedBy(index: WorkspaceIndex, env: string, templateId: string): Set<string> {
  return new Set(
    index.tasks
      .filter(
        (t) =>
          (t.env === env && t.templateId === templateId) ||
          (t.verifier?.env === env && t.verifier.templateId === templateId),
      )
      .map((t) => t.ref),
  );
}

/** Stored rollouts of these tasks, oldest first. */
export function runsOfTasks(runs: StoredRun[], refs: Set<string>): StoredRun[] {
  return runs
    .filter((r) => r.trace.task.kind === 'hud' && refs.has(r.trace.task.ref))
    .sort((a, b) => a.trace.startedAt.localeCompare(b.trace.startedAt));
}
