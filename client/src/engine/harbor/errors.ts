/**
 * Harbor trial failures carry the exception type name Harbor's own tools
 * group by (`exception_info.exception_type` in result.json, docs/harbor.md).
 */
import { CancelledError, HudStudioError, TimeoutError } from '../errors';
import { ImageBuildError, ImageMissingError } from '../docker/errors';

export class HarborTrialError extends HudStudioError {
  constructor(
    readonly exceptionType: string,
    code: 'harbor-config' | 'harbor-verifier',
    message: string,
    opts: { hint?: string; cause?: unknown } = {},
  ) {
    super(code, message, opts);
  }
}

/** The name Harbor would record for `err`, raised while the trial was at `stage`. */
export function harborExceptionType(err: unknown, stage: 'setup' | 'actor' | 'verifier', timedOut: boolean): string {
  if (err instanceof HarborTrialError) return err.exceptionType;
  if (timedOut || err instanceof TimeoutError)
    return stage === 'verifier'
      ? 'VerifierTimeoutError'
      : stage === 'setup'
        ? 'EnvironmentStartTimeoutError'
        : 'AgentTimeoutError';
  if (err instanceof CancelledError) return 'CancelledError';
  if (err instanceof ImageBuildError || err instanceof ImageMissingError) return 'SandboxBuildFailedError';
  return 'RuntimeError';
}
