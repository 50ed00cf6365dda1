/**
 * Ctrl-C cancels the running rollout through an AbortSignal so that every
 * substrate is released; a second Ctrl-C stops waiting for that.
 */
export function abortOnInterrupt(onFirst?: () => void): { signal: AbortSignal; dispose(): void } {
  const ctl = new AbortController();
  const handler = (): void => {
    if (ctl.signal.aborted) process.exit(130);
    onFirst?.();
    ctl.abort();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: ctl.signal,
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
