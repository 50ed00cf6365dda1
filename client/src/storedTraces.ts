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
 * A stored trace keeps its task's reference, not its folder, and two
 * workspace folders that each hold an env.py give their tasks the same
 * references. Each folder writes its traces to its own trace folder
 * (`traceDirOf` a task file: hudStudio.traceFolder of its folder), so that
 * is what ties a stored run to its folder's task: the one it is graded
 * again with. Otherwise the first task of the reference.
 */
export function taskOfRun(
  index: WorkspaceIndex,
  run: StoredRun,
  traceDirOf: (uri: string) => string | undefined,
): IndexedTask | undefined {
  const dir = resolve(dirname(run.path));
  let first: IndexedTask | undefined;
  for (const t of index.tasks) {
    if (t.ref !== run.trace.task.ref) continue;
    const own = traceDirOf(t.uri);
    if (own !== undefined && resolve(own) === dir) return t;
    first ??= t;
  }
  return first;
}

/** The stored runs in trace folder `dir`; all of them when the folder is not known. */
export function runsIn(runs: StoredRun[], dir: string | undefined): StoredRun[] {
  if (dir === undefined) return runs;
  const own = resolve(dir);
  return runs.filter((r) => resolve(dirname(r.path)) === own);
}
