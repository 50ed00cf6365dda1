/**
 * A byte stream to a TCP port on a container's OWN loopback, carried by an
 * exec'd relay over the Docker API. The container needs no network at all
 * (network mode none works), no port is published, and the engine never
 * dials a bridge address.
 *
 * The relay is a few lines of Python (every served environment has python3):
 * stdin -> socket, socket -> stdout, a readiness line on stderr once
 * connected, and half-close handled in both directions.
 */
import { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { CancelledError, TimeoutError } from '../errors';
import { Demuxer } from './demux';
import { startAttached } from './exec';
import { ContainerError, dockerMessage } from './errors';
import { LineSplitter } from '../output/lineSplitter';

const READY = 'HUD_STUDIO_RELAY_READY';
const DEFAULT_OPEN_TIMEOUT_MS = 15_000;

const PUMP = `
import os, socket, sys, threading
def target():
    line = b""
    while not line.endswith(b"\\n"):
        c = os.read(0, 1)
        if not c:
            sys.exit(0)
        line += c
    host, port = line.decode().split()
    return host, int(port)
host, port = target()
try:
    s = socket.create_connection((host, port), timeout=10)
except OSError as e:
    os.write(2, ("relay: cannot connect to %s:%d inside the container: %s\\n" % (host, port, e)).encode())
    sys.exit(2)
s.settimeout(None)
os.write(2, b"${READY}\\n")
def upstream():
    try:
        while True:
            b = os.read(0, 65536)
            if not b:
                break
            s.sendall(b)
    except OSError:
        pass
    try:
        s.shutdown(socket.SHUT_WR)
    except OSError:
        pass
threading.Thread(target=upstream, daemon=True).start()
try:
    while True:
        b = s.recv(65536)
        if not b:
            break
        while b:
            b = b[os.write(1, b):]
except OSError:
    pass
`;

export interface RelayOptions {
  /** Default 127.0.0.1 (the server binds the container's loopback). */
  host?: string;
  /** Interpreter inside the container; default `python3`. */
  python?: string;
  /** Where the relay's exec looks `python3` up (the container's enginePath); default: the image's PATH. */
  path?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * A relay started ahead of need: its exec and interpreter start-up (the slow
 * part) overlap with the server's own start, and `connect` only has to say
 * where to. Dispose it if it is never used.
 */
export interface PendingRelay {
  connect(port: number, opts?: RelayOptions): Promise<Duplex>;
  dispose(): void;
}

/** Opens a relayed connection; resolves once the relay is connected inside the container. */
export async function openRelay(container: Docker.Container, port: number, opts: RelayOptions = {}): Promise<Duplex> {
  return (await prepareRelay(container, opts)).connect(port, opts);
}

export async function prepareRelay(
  container: Docker.Container,
  opts: Pick<RelayOptions, 'python' | 'path' | 'signal'> = {},
): Promise<PendingRelay> {
  if (opts.signal?.aborted) throw new CancelledError('opening the control channel');
  let sock: Duplex;
  try {
    const exec = await container.exec({
      Cmd: [opts.python ?? 'python3', '-I', '-S', '-c', PUMP],
      ...(opts.path !== undefined ? { Env: [`PATH=${opts.path}`] } : {}),
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
    });
    sock = await startAttached(container, exec, true);
  } catch (err) {
    throw new ContainerError(
      `could not start the channel relay in container ${container.id.slice(0, 12)}: ${dockerMessage(err)}`,
      { cause: err },
    );
  }
  const early: string[] = [];
  let ready = false;
  let exited = false;
  let waiter: ((err?: Error) => void) | undefined;
  const duplex = new RelayStream(sock);
  const stderr = new LineSplitter((line) => {
    if (!ready && line === READY) {
      ready = true;
      waiter?.();
    } else if (!ready) early.push(line);
  });
  const demux = new Demuxer((stream, payload) => {
    if (stream === 'stderr') stderr.push(payload);
    else if (stream === 'stdout') {
      if (!ready) early.push(payload.toString('utf8'));
      duplex.deliver(payload);
    }
  });
  const failure = (why: string, cause?: unknown): ContainerError =>
    new ContainerError(`control channel relay failed: ${why}`, {
      hint: 'the image needs python3 on PATH and the server must still be running',
      ...(cause ? { cause } : {}),
    });
  sock.on('data', (chunk: Buffer) => demux.push(chunk));
  const ended = (): void => {
    if (exited) return;
    exited = true;
    stderr.end();
    if (!ready) waiter?.(failure(early.join('\n').trim() || 'the relay exited before connecting'));
    duplex.deliver(null);
  };
  sock.on('end', ended);
  sock.on('close', ended);
  sock.on('error', (err) => {
    if (!ready) waiter?.(failure(err.message, err));
    else duplex.destroy(err);
  });

  let used = false;
  return {
    dispose: () => {
      if (!used) sock.destroy();
    },
    connect: (port, copts = {}) => {
      if (used) return Promise.reject(new ContainerError('this relay is already connected'));
      used = true;
      if (exited) return Promise.reject(failure(early.join('\n').trim() || 'the relay exited before connecting'));
      const timeoutMs = copts.timeoutMs ?? DEFAULT_OPEN_TIMEOUT_MS;
      return new Promise<Duplex>((resolve, reject) => {
        let settled = false;
        const settle = (err?: Error): void => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          copts.signal?.removeEventListener('abort', onAbort);
          if (err) {
            sock.destroy();
            reject(err);
          } else resolve(duplex);
        };
        const timer = setTimeout(
          () => settle(new TimeoutError(`connecting to port ${port} inside the container`, timeoutMs)),
          timeoutMs,
        );
        const onAbort = (): void => settle(new CancelledError('opening the control channel'));
        if (copts.signal?.aborted) return onAbort();
        copts.signal?.addEventListener('abort', onAbort, { once: true });
        waiter = settle;
        sock.write(`${copts.host ?? '127.0.0.1'} ${port}\n`);
      });
    },
  };
}

/** The caller's side: writes go to the relay's stdin, its stdout comes back. */
class RelayStream extends Duplex {
  private ended = false;

  constructor(private readonly sock: Duplex) {
    super();
  }

  deliver(chunk: Buffer | null): void {
    if (this.ended) return;
    if (chunk === null) this.ended = true;
    if (!this.push(chunk)) this.sock.pause();
  }

  override _read(): void {
    this.sock.resume();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.sock.write(chunk, cb);
  }

  override _final(cb: (err?: Error | null) => void): void {
    // Half-close: the relay shuts the socket's write side, the server still answers.
    this.sock.end();
    cb();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.sock.destroy();
    cb(err);
  }
}
