/**
 * A cancel scope with an optional deadline, nested under a parent signal.
 * Its signal aborts with the parent's reason (cancel) or with a
 * TimeoutError naming what ran out of time, so callers can tell the two apart.
 */
import { CancelledError, TimeoutError } from './errors';

export class Deadline {
  private readonly ctl = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private readonly onParent = (): void => this.ctl.abort(this.parent?.reason);

  constructor(
    private readonly what: string,
    private readonly parent: AbortSignal | undefined,
    ms?: number,
  ) {
    if (parent?.aborted) this.ctl.abort(parent.reason);
    else parent?.addEventListener('abort', this.onParent, { once: true });
    this.reset(ms);
  }

  get signal(): AbortSignal {
    return this.ctl.signal;
  }

  /** Restarts the clock (e.g. once the task's own limits are known); undefined or 0 = no deadline. */
  reset(ms: number | undefined): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (ms && ms > 0 && Number.isFinite(ms)) {
      this.timer = setTimeout(() => this.ctl.abort(new TimeoutError(this.what, ms)), ms);
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.parent?.removeEventListener('abort', this.onParent);
  }
}

/**
 * Settles with `work`, or rejects as soon as `signal` aborts, whichever
 * comes first, so a part that ignores its signal (an agent, a provider's
 * exec) cannot hold a cancel or a timeout hostage. A value that arrives
 * after the abort goes to `onLate` (e.g. to release a substrate nobody
 * will use).
 */
export function abortable<T>(work: Promise<T>, signal: AbortSignal, onLate?: (value: T) => void): Promise<T> {
  if (signal.aborted) {
    void work.then(onLate, () => undefined);
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      void work.then(onLate, () => undefined);
      reject(abortReason(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => (signal.removeEventListener('abort', onAbort), signal.aborted ? undefined : resolve(v)),
      (e: unknown) => (signal.removeEventListener('abort', onAbort), reject(e)),
    );
  });
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new CancelledError();
}
