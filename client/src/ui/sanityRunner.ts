/**
 * Runs the sanity check of one env.py for the editor (docs/grader-workbench.md,
 * "In the editor"): every task of the file gets the answers that deserve
 * nothing, and its golden rows, through the same runtime, credentials and
 * limits as the editor's rollouts. Probes leave no traces.
 */
import { existsSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { goldenPathFor } from '../../../common/golden/rows';
import { readGolden } from '../engine/golden/file';
import { loadTasks } from '../engine/job';
import { sanityOfTask, type TaskSanity } from '../engine/sanity/run';
import type { Settings } from '../settings';
import type { Runtime } from './runner';

export interface SanityRunOptions {
  file: string;
  folder: string;
  settings: Settings;
  runtime: Runtime;
  credentials: Record<string, Record<string, string>>;
  signal: AbortSignal;
  /** Called before each task with its place in the file's list, and after discovery with the total. */
  onTask?: (done: number, total: number, ref: string) => void;
}

export async function runSanity(opts: SanityRunOptions): Promise<TaskSanity[]> {
  const { settings, runtime, signal } = opts;
  // The workspace-relative path gives the same task references as the language server's index.
  const path = relative(opts.folder, opts.file).split(sep).join('/');
  const goldenPath = goldenPathFor(opts.file);
  const golden = existsSync(goldenPath) ? readGolden(goldenPath) : undefined;
  const tasks = await loadTasks(path, opts.folder, runtime.selected.provider, signal);
  const results: TaskSanity[] = [];
  for (const [i, task] of tasks.entries()) {
    if (signal.aborted) break;
    opts.onTask?.(i, tasks.length, task.ref);
    const image = settings.imageOverrides[task.env];
    results.push(
      await sanityOfTask(task, {
        cwd: opts.folder,
        runtime: runtime.runtime,
        context: { selected: runtime.selected, signal },
        request: {
          dockerHost: runtime.dockerHost,
          credentials: opts.credentials,
          sdk: settings.sdk,
          limits: {
            startupMs: settings.timeouts.startupSeconds * 1000,
            phaseMs: settings.timeouts.phaseSeconds * 1000,
            rolloutMs: settings.timeouts.rolloutSeconds * 1000,
            callMs: settings.timeouts.callSeconds * 1000,
          },
        },
        ...(golden ? { golden } : {}),
        ...(image ? { image } : {}),
      }),
    );
  }
  return results;
}
