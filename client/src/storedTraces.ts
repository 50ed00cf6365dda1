/**
 * The stored rollouts in a trace folder that the editor can offer to grade
 * again: every trace file except regrade traces (a regrade's original is the
 * one to grade again), read once per file version. The CodeLens counts them
 * per template (docs/grader-workbench.md, "In the editor"). No VS Code here.
 */
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { IndexedTask, WorkspaceIndex } from '../../common/lspMessages';
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

/**
 * A trace keeps its task's reference, not the workspace folder the task is
 * in, and two folders that each hold an env.py give their tasks the same
 * references. Each folder writes its traces to its own trace folder
 * (hudStudio.traceFolder), so the folder that holds a trace is what ties it
 * to its folder's task: the last reward a task shows (runsModel.ts
 * outcomeKey), the stored runs a template's lens counts and the sources a
 * stored run is graded again with.
 */
export function traceFolderOf(tracePath: string): string {
  return traceFolder(dirname(tracePath));
}

/** A trace folder spelled one way (absolute, no trailing separator), so two spellings of it compare equal. */
export function traceFolder(dir: string): string {
  return resolve(dir);
}

/**
 * The task a stored run belongs to: of its reference, in the folder whose
 * trace folder (`traceDirOf` a task file) holds it; otherwise the first
 * task of the reference.
 */
export function taskOfRun(
  index: WorkspaceIndex,
  run: StoredRun,
  traceDirOf: (uri: string) => string | undefined,
): IndexedTask | undefined {
  const dir = traceFolderOf(run.path);
  let first: IndexedTask | undefined;
  for (const t of index.tasks) {
    if (t.ref !== run.trace.task.ref) continue;
    const own = traceDirOf(t.uri);
    if (own !== undefined && traceFolder(own) === dir) return t;
    first ??= t;
  }
  return first;
}

/** The stored runs in trace folder `dir`; all of them when the folder is not known. */
export function runsIn(runs: StoredRun[], dir: string | undefined): StoredRun[] {
  if (dir === undefined) return runs;
  const own = traceFolder(dir);
  return runs.filter((r) => traceFolderOf(r.path) === own);
}
