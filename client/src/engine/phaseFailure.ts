/**
 * Thrown inside a rollout or a Harbor trial to end it with a recorded
 * failure: the phase that failed, whether it errored or was cancelled, and a
 * stable code for the trace.
 */
import type { Fix } from '../../../common/fix';
import type { ErrorPhase } from '../../../common/trace/schema';

export class PhaseFailure extends Error {
  constructor(
    readonly phase: ErrorPhase,
    readonly status: 'error' | 'cancelled',
    message: string,
    readonly code: string | undefined,
    readonly fix?: Fix,
  ) {
    super(message);
  }
}
