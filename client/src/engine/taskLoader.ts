/**
 * From what the user typed (`PATH[::REF]`) to one discovered task row, and
 * the task identity a trace records.
 */
import { dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import type { DiscoveredTask, DiscoveredVerifier } from './discover';
import { HudStudioError, UsageError } from './errors';
import { formatTaskRef, parseSelector, splitTaskRef } from './taskRef';
import { isHarborTaskDir } from '../../../common/harbor/loadTask';
import type { TaskIdentity } from '../../../common/trace/schema';

export interface TaskFileTarget {
  /** The path as the user wrote it (shown in refs and messages). */
  displayPath: string;
  /** Absolute host path of the task file. */
  file: string;
  /** Absolute host path of the env.py that is served (the file itself, or the module beside a .json/.jsonl). */
  envFile: string;
  /** The folder copied into the substrate. */
  envDir: string;
  /** Normalised selector, or undefined when the user gave only a path. */
  selector: string | undefined;
}

const ROW_FILES = new Set(['.json', '.jsonl']);

/** A reference without `::REF` naming a folder that holds task.toml. */
export function isHarborDir(pathOrRef: string, cwd: string): boolean {
  return splitTaskRef(pathOrRef).selector === undefined && isHarborTaskDir(resolve(cwd, pathOrRef));
}

/** Parses `PATH[::REF]` against `cwd` and checks the file exists. */
export function taskFileTarget(text: string, cwd: string, module?: string): TaskFileTarget {
  const ref = splitTaskRef(text.trim());
  const selector = ref.selector;
  let path = ref.path;
  if (!path)
    throw new UsageError(`task reference "${text}" has no path`, {
      hint: 'write PATH or PATH::NAME, e.g. env.py::task',
    });
  let file = isAbsolute(path) ? path : resolve(cwd, path);
  if (!existsSync(file)) {
    throw new UsageError(`${path}: no such file`, { hint: 'give the path of an env.py (or a .json/.jsonl task file)' });
  }
  // An environment's folder stands for its env.py (the SDK's `hud eval` and `hud deploy` take one too).
  if (!statSync(file).isFile()) {
    const inside = join(file, 'env.py');
    if (!existsSync(inside) || !statSync(inside).isFile()) {
      throw new UsageError(`${path} is a folder with neither env.py nor task.toml`, {
        hint: 'give an env.py (or a .json/.jsonl task file), the folder that holds it, or a Harbor task directory',
      });
    }
    file = inside;
    path = join(path, 'env.py');
  }
  let normalised: string | undefined;
  if (selector !== undefined) {
    const sel = parseSelector(selector);
    if (!sel) {
      throw new UsageError(`task reference "${text}" has an invalid selector "${selector}"`, {
        hint: 'use PATH::NAME, PATH::NAME[i] or PATH::N (row of a .json/.jsonl file)',
      });
    }
    normalised = splitTaskRef(formatTaskRef({ ...sel, path })).selector;
  }
  const isRows = ROW_FILES.has(extname(file).toLowerCase());
  const envFile = isRows ? (module ? resolve(cwd, module) : join(dirname(file), 'env.py')) : file;
  if (isRows && !existsSync(envFile)) {
    throw new UsageError(`${path}: the environment module ${envFile} does not exist`, {
      hint: 'put the env.py that defines the environments beside the task file',
    });
  }
  return { displayPath: path, file, envFile, envDir: dirname(envFile), selector: normalised };
}

/** Picks the row the user meant; with one task in the file the selector may be omitted. */
export function resolveTask(
  tasks: DiscoveredTask[],
  target: Pick<TaskFileTarget, 'displayPath' | 'selector'>,
): DiscoveredTask {
  if (tasks.length === 0) {
    throw new HudStudioError('task-ref', `${target.displayPath} defines no tasks`, {
      location: { file: target.displayPath },
      hint: 'create a module-level Task, e.g. `task = my_template()`',
    });
  }
  const refs = tasks.map((t) => t.ref);
  if (target.selector === undefined) {
    if (tasks.length === 1) return tasks[0]!;
    throw new UsageError(
      `${target.displayPath} defines ${tasks.length} tasks; say which one:\n  ${refs.join('\n  ')}`,
      {
        hint: `run e.g. ${refs[0]}`,
      },
    );
  }
  const found = tasks.find((t) => t.selector === target.selector);
  if (found) return found;
  throw new UsageError(
    `${target.displayPath} has no task "${target.selector}"; its tasks are:\n  ${refs.join('\n  ')}`,
  );
}

/** A verifier is reached through its actor task, so it carries the actor's reference. */
export function taskIdentity(task: DiscoveredTask | DiscoveredVerifier, ref: string): TaskIdentity {
  return {
    ref,
    kind: 'hud',
    env: task.env,
    id: task.id,
    args: task.args,
    slug: task.slug,
    ...(task.description ? { description: task.description } : {}),
    sourceHash: task.sourceHash,
    ...(task.source !== undefined ? { source: task.source } : {}),
    ...(task.runtimeConfig ? { runtimeConfig: task.runtimeConfig } : {}),
  };
}
