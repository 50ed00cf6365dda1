/**
 * Exact task rows (args, verifier, runtime_config, source) come from running
 * the module where the rollout runs, with the bundled discovery helper
 * (`python3 -m hud_studio.discover`, outside the `hud` package so that it
 * never shadows a real SDK). The editor's index is static; this is not.
 */
import { join, relative } from 'node:path';
import { z } from 'zod';
import { HudStudioError, type ErrorLocation } from './errors';
import type { Substrate } from './providers/provider';
import { parseRuntimeConfig, type RuntimeConfig } from './runtimeConfig';

// Checked per task by parseRuntimeConfig, so that a bad value is reported with the task's location.
const RuntimeConfigSchema = z.unknown().default(null);

const VerifierRow = z.object({
  env: z.string(),
  id: z.string(),
  args: z.record(z.string(), z.unknown()).default({}),
  slug: z.string(),
  description: z.string().nullable().default(null),
  runtime_config: RuntimeConfigSchema,
  source: z.string().nullable().default(null),
  source_hash: z.string(),
  line: z.number().int().nullable().default(null),
});

const RowFailure = z.object({ message: z.string(), line: z.number().int().nullable().default(null) });

const TaskRow = VerifierRow.extend({
  ref: z.string(),
  verifier: VerifierRow.nullable().default(null),
  row_error: RowFailure.nullable().default(null),
});

const DiscoveryError = z.object({
  message: z.string(),
  file: z.string().nullable().optional(),
  line: z.number().int().nullable().optional(),
  traceback: z.string().nullable().optional(),
});

export const DiscoveryOutput = z.object({
  file: z.string(),
  tasks: z.array(TaskRow).default([]),
  environments: z.array(z.unknown()).default([]),
  error: DiscoveryError.nullable().default(null),
});

/** One runnable task of a file, with the host path in its reference. */
export interface DiscoveredTask {
  /** `HOSTPATH::selector` as the user writes it. */
  ref: string;
  selector: string;
  env: string;
  id: string;
  args: Record<string, unknown>;
  slug: string;
  description: string | undefined;
  runtimeConfig: RuntimeConfig | null;
  source: string | undefined;
  sourceHash: string;
  line: number | undefined;
  verifier: DiscoveredVerifier | null;
  /**
   * Set for a task-file row that names no template of the module or whose
   * arguments do not fit its template (the message says which): as under
   * the SDK, that row's run fails and the file's other rows run (docs/engine.md).
   */
  rowError?: TaskRowError;
}

/** Why a task-file row cannot run; `line` is the row's line in the task file. */
export interface TaskRowError {
  message: string;
  line: number | undefined;
}

export type DiscoveredVerifier = Omit<DiscoveredTask, 'ref' | 'selector' | 'verifier'>;

export interface DiscoverRequest {
  /** The task file as the user named it (host path, relative or absolute). */
  displayPath: string;
  /** Host folder copied into the substrate (maps substrate paths back for errors). */
  hostDir: string;
  /** Task file path inside the substrate. */
  file: string;
  /** The env.py that defines the environments, for .json/.jsonl task files (path inside the substrate). */
  module?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export async function discoverTasks(substrate: Substrate, req: DiscoverRequest): Promise<DiscoveredTask[]> {
  const argv = ['-m', 'hud_studio.discover', req.file, ...(req.module ? ['--module', req.module] : []), '--json'];
  const res = await substrate.execPython(argv, {
    cwd: substrate.workdir,
    timeoutMs: req.timeoutMs ?? 60_000,
    ...(req.signal ? { signal: req.signal } : {}),
  });
  if (res.exitCode === null) {
    throw new HudStudioError('task-load', `loading ${req.displayPath} ${res.timedOut ? 'timed out' : 'was stopped'}`, {
      location: { file: req.displayPath },
      hint: 'module-level code of the environment must finish quickly; move slow work into @env.initialize',
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(res.stdout);
  } catch {
    throw new HudStudioError('task-load', `could not load ${req.displayPath}: ${lastLines(res.stderr || res.stdout)}`, {
      location: { file: req.displayPath },
      hint: 'check that python3 (3.9+) runs and that the file imports without errors',
    });
  }
  const parsed = DiscoveryOutput.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HudStudioError(
      'task-load',
      `the discovery helper returned unexpected data (${issue?.path.join('.')}: ${issue?.message})`,
    );
  }
  const out = parsed.data;
  if (out.error) {
    const file = out.error.file ? toHostPath(out.error.file, substrate.workdir, req.hostDir) : req.displayPath;
    // The helper names the file by its path inside the substrate; the user knows it by theirs.
    const message = out.error.message.split(req.file).join(req.displayPath);
    throw new HudStudioError('task-load', message, {
      location: { file, ...(out.error.line ? { line: out.error.line } : {}) },
      hint: 'fix the error in the environment module, then run again',
    });
  }
  return out.tasks.map((row) => {
    const at = row.ref.lastIndexOf('::');
    const selector = at >= 0 ? row.ref.slice(at + 2) : row.ref;
    // Rows of a .json/.jsonl file report the template's line in env.py, not a line of that file.
    const located = (line: number | null) => ({ file: req.displayPath, ...(line && !req.module ? { line } : {}) });
    const verifier = row.verifier ? toTask(row.verifier, located(row.verifier.line)) : null;
    const rowError = row.row_error ? { message: row.row_error.message, line: row.row_error.line ?? undefined } : null;
    return {
      ref: `${req.displayPath}::${selector}`,
      selector,
      ...toTask(row, located(row.line)),
      verifier,
      ...(rowError ? { rowError } : {}),
    };
  });
}

function toTask(row: z.infer<typeof VerifierRow>, where: ErrorLocation): DiscoveredVerifier {
  return {
    env: row.env,
    id: row.id,
    args: row.args,
    slug: row.slug,
    description: row.description ?? undefined,
    runtimeConfig: parseRuntimeConfig(row.runtime_config, `${row.env}/${row.id}`, where),
    source: row.source ?? undefined,
    sourceHash: row.source_hash,
    line: row.line ?? undefined,
  };
}

function toHostPath(p: string, workdir: string, hostDir: string): string {
  if (workdir && (p === workdir || p.startsWith(`${workdir}/`))) return join(hostDir, relative(workdir, p));
  return p;
}

function lastLines(text: string, n = 5): string {
  const lines = text.trim().split('\n');
  return lines.slice(-n).join('\n') || '(no output)';
}
