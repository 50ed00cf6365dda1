/** Finds the stored rollouts of a task reference that can be graded again (docs/grader-workbench.md). */
import { resolve } from 'node:path';
import { HudStudioError } from '../errors';
import { splitTaskRef } from '../taskRef';
import { listTraceFiles, readTrace } from '../trace/store';
import type { Trace } from '../../../../common/trace/schema';

export interface StoredRollout {
  path: string;
  trace: Trace;
}

/**
 * Traces in `traceDir` whose task is `ref`: same file (resolved against
 * `cwd`) and, when `ref` names a task, the same selector or task id. Regrade
 * traces are left out (their own original is the one to grade again), as are
 * files that fail to parse (a warning each).
 */
export function storedRollouts(
  ref: string,
  cwd: string,
  traceDir: string,
  warn: (line: string) => void = () => undefined,
): StoredRollout[] {
  const want = splitTaskRef(ref.trim());
  const wantFile = resolve(cwd, want.path);
  const found: StoredRollout[] = [];
  for (const path of listTraceFiles(resolve(cwd, traceDir))) {
    let trace: Trace;
    try {
      trace = readTrace(path);
    } catch (err) {
      warn(err instanceof HudStudioError ? err.message : String(err));
      continue;
    }
    if (trace.regrade) continue;
    const have = splitTaskRef(trace.task.ref);
    if (resolve(cwd, have.path) !== wantFile) continue;
    if (want.selector !== undefined && want.selector !== have.selector && want.selector !== trace.task.id) continue;
    found.push({ path, trace });
  }
  return found;
}
