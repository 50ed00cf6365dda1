/** Traces and trace identities for the client's unit tests. */
import type { Trace } from '../../../common/trace/schema';

export const T0 = Date.parse('2026-11-29T10:00:00.000Z');
export const at = (ms: number): string => new Date(T0 + ms).toISOString();
export const identity = (ref: string, env: string, id: string) => ({
  ref,
  kind: 'hud' as const,
  env,
  id,
  args: {},
  slug: `${id}-1234abcd`,
  sourceHash: 'h',
});

/** A finished rollout of `envs/env.py::task` as read from its trace file, started `startMs` after T0. */
export function storedTrace(id: string, startMs: number): Trace {
  return {
    schemaVersion: 1,
    rolloutId: id,
    startedAt: at(startMs),
    task: identity('envs/env.py::task', 'workspace', 'solve'),
    verifier: null,
    agent: { kind: 'fixed' },
    provider: { kind: 'local', verifierSubstrate: 'none' },
    phases: [],
    agentSteps: [],
    result: { reward: 1, subscores: [], info: {}, isError: false },
    status: 'completed',
    error: null,
    warnings: [],
    events: [],
  } as unknown as Trace;
}
