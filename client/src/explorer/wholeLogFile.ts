/**
 * Which file the explorer may read when its page asks for a phase's whole
 * log. The page is less trusted than the host (it renders untrusted traces),
 * so it can name only the one side file the trace writer puts beside this
 * trace (`<name>.logs/<phase>.log`, client/src/engine/trace/sideLogs.ts), and
 * only up to a size the page can hold as one string.
 */
import { basename, dirname, join } from 'node:path';
import type { PhaseName } from '../../../common/trace/schema';

/** A JavaScript string holds at most ~512 M characters; stay well under it. */
export const MAX_WHOLE_LOG_BYTES = 256 * 1024 * 1024;

export type WholeLogFile = { ok: true; path: string } | { ok: false; message: string };

export function wholeLogFile(tracePath: string, phase: PhaseName, file: string): WholeLogFile {
  const name = basename(tracePath).replace(/\.hudtrace\.json$/, '');
  const expected = `${name}.logs/${phase}.log`;
  if (file !== expected)
    return {
      ok: false,
      message: `the trace names ${JSON.stringify(file)} as its ${phase} log; only ${expected} is read`,
    };
  return { ok: true, path: join(dirname(tracePath), expected) };
}

/** The message for a side file over {@link MAX_WHOLE_LOG_BYTES}. */
export function tooBigMessage(path: string, size: number): string {
  const mb = (n: number): string => `${Math.round(n / (1024 * 1024))} MB`;
  return `${path} is ${mb(size)}, over the ${mb(MAX_WHOLE_LOG_BYTES)} the explorer shows; open it in an editor or with less`;
}
