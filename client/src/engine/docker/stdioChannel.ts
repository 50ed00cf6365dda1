/**
 * The control channel on the pre-started server's own stdin and stdout
 * (docs/hud-protocol.md), so that it needs no relay exec: the server sends
 * everything but its port line to stderr, which leaves its stdout free once
 * the port is known. The engine writes the port as one line on the server's
 * stdin; the interpreter (runtime/python/hud_studio/prestart.py) connects to
 * it on the container's own loopback, answers with one line on stdout
 * (READY, or FAILED and why), then carries bytes both ways. The channel's
 * end never ends that stdin: the end of stdin stops the server.
 */
import { Duplex } from 'node:stream';
import { CancelledError, TimeoutError } from '../errors';
import { ContainerError } from './errors';
import type { InteractiveExec } from './exec';

const READY = 'HUD_STUDIO_CHANNEL_READY';
const FAILED = 'HUD_STUDIO_CHANNEL_FAILED ';
const DEFAULT_OPEN_TIMEOUT_MS = 15_000;
/** The most the interpreter's answer line may take before it is not one. */
const MAX_ANSWER_BYTES = 4096;

export interface StdioChannelOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** Resolves once the interpreter inside the container is connected to `port`. */
export function openStdioChannel(
  server: InteractiveExec,
  port: number,
  opts: StdioChannelOptions = {},
): Promise<Duplex> {
  const channel = new StdioChannel(server.stdin);
  let answer = Buffer.alloc(0);
  let settle: ((err?: Error) => void) | undefined;
  const failure = (why: string): ContainerError =>
    new ContainerError(`control channel failed: ${why}`, { hint: 'the server must still be running' });
  server.divertStdout((payload) => {
    if (!settle) return channel.deliver(payload);
    answer = Buffer.concat([answer, payload]);
    const newline = answer.indexOf(10);
    if (newline < 0) {
      if (answer.length > MAX_ANSWER_BYTES) settle(failure('the server wrote to its stdout before the channel opened'));
      return;
    }
    const line = answer.subarray(0, newline).toString('utf8');
    const rest = answer.subarray(newline + 1);
    if (line === READY) {
      settle();
      if (rest.length) channel.deliver(rest);
    } else if (line.startsWith(FAILED)) settle(failure(line.slice(FAILED.length)));
    else settle(failure(`unexpected output on the server's stdout: ${line.slice(0, 200)}`));
  });
  void (server.outputEnded ?? server.done).then(() => {
    settle?.(failure('the server ended before the channel opened'));
    channel.deliver(null);
  });
  const timeoutMs = opts.timeoutMs ?? DEFAULT_OPEN_TIMEOUT_MS;
  return new Promise<Duplex>((resolve, reject) => {
    const timer = setTimeout(
      () => settle?.(new TimeoutError(`connecting to port ${port} inside the container`, timeoutMs)),
      timeoutMs,
    );
    const onAbort = (): void => settle?.(new CancelledError('opening the control channel'));
    settle = (err) => {
      settle = undefined;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (!err) return resolve(channel);
      channel.destroy();
      reject(err);
    };
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    server.stdin.write(`${port}\n`);
  });
}

/** The caller's side: writes go to the server's stdin, its stdout comes back. */
class StdioChannel extends Duplex {
  private ended = false;

  constructor(private readonly stdin: NodeJS.WritableStream) {
    super();
  }

  deliver(chunk: Buffer | null): void {
    if (this.ended || this.destroyed) return;
    if (chunk === null) this.ended = true;
    // No backpressure: the control channel's messages are small and answered one by one.
    this.push(chunk);
  }

  override _read(): void {}

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.stdin.write(chunk, (err) => cb(err ?? null));
  }

  override _final(cb: (err?: Error | null) => void): void {
    // Not the stdin's end: that stops the server, which is stopServer's to do.
    cb();
  }
}
