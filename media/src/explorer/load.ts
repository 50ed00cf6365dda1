/** Turns whatever the host posted (object or JSON text) into a validated trace. */
import { parseTrace } from '../../../client/src/engine/trace/schema';
import type { LiveTrace } from '../../../client/src/explorer/liveTrace';

export type LoadResult = { ok: true; trace: LiveTrace } | { ok: false; error: string };

export function loadTrace(input: unknown, label = 'trace'): LoadResult {
  let json = input;
  if (typeof input === 'string') {
    try {
      json = JSON.parse(input);
    } catch (e) {
      return { ok: false, error: `${label} is not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
    }
  }
  const r = parseTrace(json);
  return r.ok ? { ok: true, trace: r.trace } : { ok: false, error: `${label}: ${r.error}` };
}
