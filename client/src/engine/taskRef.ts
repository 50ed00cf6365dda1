/**
 * Task references: the one name of a runnable task used by the CLI, CodeLens
 * arguments, Testing item ids and traces (docs/hud-protocol.md). Never line
 * numbers, so a reference survives edits above the task.
 *
 *   envs/env.py::task          module-level Task variable
 *   envs/env.py::suite[2]      element of a module-level list/tuple/Taskset
 *   tasks.jsonl::4             row 4 (0-based) of a .json/.jsonl task file
 *   tasks/hello-world          a Harbor task directory
 */
import { UsageError } from './errors';

export type TaskRef =
  | { kind: 'variable'; path: string; name: string }
  | { kind: 'element'; path: string; name: string; index: number }
  | { kind: 'row'; path: string; row: number }
  | { kind: 'harbor'; path: string };

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Splits `PATH[::SELECTOR]`. Returns the path and the raw selector (undefined
 * when absent) without deciding yet what the path is; callers that know the
 * file kind use {@link parseTaskRef}.
 */
export function splitTaskRef(text: string): { path: string; selector: string | undefined } {
  const at = text.lastIndexOf('::');
  if (at < 0) return { path: text, selector: undefined };
  return { path: text.slice(0, at), selector: text.slice(at + 2) };
}

/** Parses a full reference. A path without selector is a Harbor directory. */
export function parseTaskRef(text: string): TaskRef {
  const { path, selector } = splitTaskRef(text.trim());
  if (!path)
    throw new UsageError(`task reference "${text}" has no path`, { hint: 'write PATH::NAME, e.g. env.py::task' });
  if (selector === undefined) return { kind: 'harbor', path };
  const sel = parseSelector(selector);
  if (!sel) {
    throw new UsageError(`task reference "${text}" has an invalid selector "${selector}"`, {
      hint: 'use PATH::NAME, PATH::NAME[i] or PATH::N (row of a .json/.jsonl file)',
    });
  }
  return { ...sel, path };
}

export function parseSelector(
  selector: string,
):
  | { kind: 'variable'; name: string }
  | { kind: 'element'; name: string; index: number }
  | { kind: 'row'; row: number }
  | undefined {
  if (/^\d+$/.test(selector)) return { kind: 'row', row: Number(selector) };
  const el = /^([A-Za-z_][A-Za-z0-9_]*)\[(\d+)\]$/.exec(selector);
  if (el) return { kind: 'element', name: el[1]!, index: Number(el[2]) };
  if (IDENT.test(selector)) return { kind: 'variable', name: selector };
  return undefined;
}

export function formatTaskRef(ref: TaskRef): string {
  switch (ref.kind) {
    case 'variable':
      return `${ref.path}::${ref.name}`;
    case 'element':
      return `${ref.path}::${ref.name}[${ref.index}]`;
    case 'row':
      return `${ref.path}::${ref.row}`;
    case 'harbor':
      return ref.path;
  }
}

/** The part after `::`, as the discovery module reports it (`task`, `suite[1]`, `3`). */
export function selectorOf(ref: TaskRef): string | undefined {
  const text = formatTaskRef(ref);
  return splitTaskRef(text).selector;
}
