/** One typed error for every way a model request can fail after the library gave up retrying. */
import { HudStudioError } from '../../errors';

export class ModelRequestError extends HudStudioError {
  constructor(
    readonly model: string,
    readonly status: number | undefined,
    detail: string,
    cause: unknown,
  ) {
    super('agent', `model ${model}: ${status ? `HTTP ${status}: ` : ''}${detail}`, {
      cause,
      hint: hintFor(status),
    });
  }
}

function hintFor(status: number | undefined): string {
  if (status === 401 || status === 403) return 'check the API key variable of this provider (docs/models.md)';
  if (status === 404) return 'check the model name and --base-url';
  if (status === 429) return 'the provider kept rate-limiting after every retry; lower --max-concurrent or wait';
  if (status !== undefined && status >= 500) return 'the model server kept failing after every retry; try again later';
  return 'check that the model server is reachable at its base URL';
}

/** Both SDKs' errors carry `status` and a message; anything else is a connection-level failure. */
export function toModelError(model: string, err: unknown): ModelRequestError {
  const status =
    typeof (err as { status?: unknown }).status === 'number' ? (err as { status: number }).status : undefined;
  const message = err instanceof Error ? err.message : String(err);
  return new ModelRequestError(model, status, message.split('\n')[0] ?? message, err);
}

export function isUserAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'APIUserAbortError' || err.name === 'AbortError');
}
