/**
 * Trace files on disk: `<traceDir>/<timestamp>-<slug>-<rolloutId8>.hudtrace.json`,
 * always written atomically (temporary file in the same folder, then rename),
 * so a reader (the extension's file watcher, the explorer) never sees half a
 * trace.
 */
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { HudStudioError } from '../errors';
import { TRACE_FILE_SUFFIX, parseTrace, type Trace } from '../../../../common/trace/schema';
import type { SideLogs } from './sideLogs';

export const DEFAULT_TRACE_DIR = join('.hud-studio', 'traces');

/** `2026-11-29T20:34:32.123Z` -> `20261129T203432123Z` (sortable, no `:` for Windows). */
export function fileTimestamp(iso: string): string {
  return iso.replace(/[-:]/g, '').replace('.', '');
}

export function safeSlug(slug: string): string {
  return (
    slug
      .replace(/[^A-Za-z0-9_.-]+/g, '_')
      .replace(/^[._]+/, '')
      .slice(0, 80) || 'task'
  );
}

export function traceFileName(trace: Pick<Trace, 'startedAt' | 'rolloutId' | 'task'>): string {
  return `${fileTimestamp(trace.startedAt)}-${safeSlug(trace.task.slug)}-${trace.rolloutId.slice(0, 8)}${TRACE_FILE_SUFFIX}`;
}

/**
 * Puts a file at `path` that `make` creates at a fresh temporary name beside
 * it (it must fail if that name exists): `path` is then absent, old or
 * complete, and a link already there is replaced, never written through.
 */
export function replaceFile(path: string, make: (tmp: string) => void): void {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    make(tmp);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** Writes `text` to `path` so that the file is either absent, old, or complete. */
export function writeFileAtomic(path: string, text: string): void {
  replaceFile(path, (tmp) => writeFileSync(tmp, text, { encoding: 'utf8', flag: 'wx' }));
}

/**
 * Validates and writes one trace; returns its path. `sideLogs` (the whole
 * logs of phases the trace keeps only the head and tail of) move beside it,
 * and each such phase names its file in `logFile`.
 */
export function writeTrace(traceDir: string, trace: Trace, sideLogs?: SideLogs): string {
  const name = traceFileName(trace);
  if (sideLogs) {
    for (const [phase, file] of sideLogs.commit(name)) {
      const p = trace.phases.find((x) => x.name === phase);
      if (p) p.logFile = file;
    }
    if (sideLogs.error && !trace.warnings.includes(sideLogs.error)) trace.warnings.push(sideLogs.error);
  }
  const check = parseTrace(trace);
  if (!check.ok) throw new HudStudioError('trace', `refusing to write an invalid trace: ${check.error}`);
  try {
    mkdirSync(traceDir, { recursive: true });
    const path = join(traceDir, name);
    writeFileAtomic(path, `${JSON.stringify(check.trace, null, 2)}\n`);
    return path;
  } catch (err) {
    throw new HudStudioError('trace', `cannot write the trace into ${traceDir}: ${(err as Error).message}`, {
      fix: { kind: 'trace-dir' },
      cause: err,
    });
  }
}

export function readTrace(path: string): Trace {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new HudStudioError('trace', `cannot read ${path}: ${(err as Error).message}`, { location: { file: path } });
  }
  const r = parseTrace(json);
  if (!r.ok) throw new HudStudioError('trace', r.error, { location: { file: path } });
  return r.trace;
}

/** Trace files of a folder, oldest first (names start with the timestamp). */
export function listTraceFiles(traceDir: string): string[] {
  try {
    return readdirSync(traceDir)
      .filter((n) => n.endsWith(TRACE_FILE_SUFFIX))
      .sort()
      .map((n) => join(traceDir, n));
  } catch {
    return [];
  }
}
