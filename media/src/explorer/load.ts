/** Turns whatever the host posted (object or JSON text) into a validated trace. */
import { parseRunningTrace, parseTrace, type RunningTrace } from '../../../common/trace/schema';

export type LoadResult = { ok: true; trace: RunningTrace } | { ok: false; error: string };

/** A finished rollout: the trace file format, so a `running` status is an error here. */
export function loadTrace(input: unknown, label = 'trace'): LoadResult {
  return load(input, label, parseTrace);
}

/** A rollout that may still be running (the `running` message, the page's saved state). */
export function loadRunningTrace(input: unknown, label = 'running trace'): LoadResult {
  return load(input, label, parseRunningTrace);
}

function load(
  input: unknown,
  label: string,
  parse: (json: unknown) => { ok: true; trace: RunningTrace } | { ok: false; error: string },
): LoadResult {
  let json = input;
  if (typeof input === 'string') {
    try {
      json = JSON.parse(input);
    } catch (e) {
      return { ok: false, error: `${label} is not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
    }
  }
  const r = parse(json);
  return r.ok ? { ok: true, trace: r.trace } : { ok: false, error: `${label}: ${r.error}` };
}
