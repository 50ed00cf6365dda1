/**
 * `tunnel.open` (docs/hud-protocol.md): the first frame of a fresh control
 * connection turns it into a raw byte pipe to one capability's daemon. The
 * connection reaches the substrate the same way the control channel does
 * (the container's own loopback for Docker), so a daemon behind a container
 * with network none is still reachable.
 */
import type { Duplex } from 'node:stream';
import { CancelledError, ProtocolError } from '../errors';

/** One reply line is all that precedes the raw bytes; a longer one is not a tunnel reply. */
const MAX_REPLY_BYTES = 64 * 1024;

/**
 * Sends `tunnel.open {capability}` on `stream` and resolves with the same
 * stream once the server has agreed. The stream comes back paused, so no
 * byte is lost before its new reader listens: that reader resumes it.
 */
export function openTunnel(stream: Duplex, capability: string, signal?: AbortSignal): Promise<Duplex> {
  return new Promise<Duplex>((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const cleanup = (): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      signal?.removeEventListener('abort', onAbort);
    };
    const fail = (err: Error): void => {
      cleanup();
      stream.destroy();
      reject(err);
    };
    const onAbort = (): void => fail(new CancelledError(`tunnel to capability "${capability}"`));
    const onError = (err: Error): void =>
      fail(new ProtocolError(`the tunnel to capability "${capability}" broke: ${err.message}`, { cause: err }));
    const onEnd = (): void =>
      fail(new ProtocolError(`the server closed the connection before answering tunnel.open "${capability}"`));
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      const nl = buffered.indexOf(0x0a);
      if (nl < 0) {
        if (buffered.length > MAX_REPLY_BYTES)
          fail(new ProtocolError(`the reply to tunnel.open "${capability}" is not a JSON-RPC line`));
        return;
      }
      const line = buffered.subarray(0, nl).toString('utf8');
      const rest = buffered.subarray(nl + 1);
      let reply: { result?: unknown; error?: { code?: number; message?: string } };
      try {
        reply = JSON.parse(line) as typeof reply;
      } catch {
        fail(new ProtocolError(`the reply to tunnel.open "${capability}" is not JSON: ${line.slice(0, 200)}`));
        return;
      }
      if (reply.error || reply.result === undefined) {
        const rpcCode = reply.error?.code;
        fail(
          new ProtocolError(
            `tunnel.open "${capability}" was refused: ${reply.error?.message ?? 'the reply has no result'}`,
            rpcCode === undefined ? {} : { rpcCode },
          ),
        );
        return;
      }
      cleanup();
      stream.pause();
      // Bytes the daemon sent right after the reply (an SSH banner) belong to the tunnel's reader.
      if (rest.length) stream.unshift(rest);
      resolve(stream);
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tunnel.open', params: { capability } })}\n`);
  });
}
