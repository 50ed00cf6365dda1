/** Opens a TCP connection with a deadline and a cancel signal (local and borrowed servers). */
import { connect, type Socket } from 'node:net';
import { CancelledError, HudStudioError } from '../errors';

export function connectTcp(
  host: string,
  port: number,
  opts: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<Socket> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return reject(new CancelledError('connect'));
    const socket = connect({ host, port });
    const done = (err?: Error): void => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      socket.off('error', onError);
      socket.off('connect', onConnect);
      if (err) {
        socket.destroy();
        reject(err);
      } else resolve(socket);
    };
    const onAbort = (): void => done(new CancelledError('connect'));
    const onError = (err: Error): void =>
      done(
        new HudStudioError('provider', `cannot connect to tcp://${host}:${port}: ${err.message}`, {
          cause: err,
          hint: 'is the server running and listening on that port?',
        }),
      );
    const onConnect = (): void => {
      socket.setNoDelay(true);
      done();
    };
    const timer = setTimeout(
      () => done(new HudStudioError('provider', `connecting to tcp://${host}:${port} timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('error', onError);
    socket.once('connect', onConnect);
  });
}
