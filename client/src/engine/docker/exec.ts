/**
 * Commands in a running container through `docker exec`, with demultiplexed
 * streaming output, stdin, a timeout and cancellation.
 *
 * Killing: runc makes every exec its own session and process group, and each
 * exec also carries a unique marker variable. A second exec signals every
 * process whose environment holds the marker, as a group when it leads one,
 * so a timed-out command dies with its children even when some of them
 * changed group or session.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { CancelledError } from '../errors';
import { TailCapture } from '../output/tailCapture';
import type { ExecOptions, ExecResult } from '../providers/provider';
import { Demuxer } from './demux';
import { ContainerError, dockerMessage } from './errors';
import type { RunningExec } from './types';

export const EXEC_MARKER_VAR = 'HUD_STUDIO_EXEC';
/** After a kill, how long the output may take to close before we stop waiting. */
const KILL_GRACE_MS = 5000;

const KILL_SCRIPT = [
  'sig=$1; mark=$2',
  'for d in /proc/[0-9]*; do',
  '  p=${d#/proc/}',
  '  grep -aqF "$mark" "$d/environ" 2>/dev/null || continue',
  '  kill -"$sig" -"$p" 2>/dev/null || kill -"$sig" "$p" 2>/dev/null',
  'done',
  'exit 0',
].join('\n');

/**
 * Attach connections of each container. A connection whose stdin is still
 * open can outlive its container (the daemon waits for our end of stdin),
 * and an exec start racing the container's removal may never be answered:
 * removal aborts the pending starts and closes every connection; a start
 * after removal fails at once.
 */
interface Attachments {
  sockets: Set<Duplex>;
  removed: boolean;
  abort: AbortController;
}
const attached = new WeakMap<Docker.Container, Attachments>();

function attachmentsOf(container: Docker.Container): Attachments {
  let entry = attached.get(container);
  if (!entry) attached.set(container, (entry = { sockets: new Set(), removed: false, abort: new AbortController() }));
  return entry;
}

/** `exec.start` with hijack, abortable by the container's removal (dockerode's own start takes no signal). */
export function startAttached(container: Docker.Container, exec: Docker.Exec, stdin: boolean): Promise<Duplex> {
  return dialAttached(container, `/exec/${exec.id}/start?`, { hijack: true, stdin }, stdin, {
    200: true,
    204: true,
    404: 'no such exec',
    409: 'container stopped/paused',
    500: 'container not running',
  });
}

/**
 * Attaches to a created container's own process, stdin included (what
 * `docker run -i` does): called before start, so that none of its output
 * is missed. Closed, like every attach connection, when the container is removed.
 */
export function attachContainer(container: Docker.Container): Promise<Duplex> {
  return dialAttached(
    container,
    `/containers/${container.id}/attach?`,
    { stream: true, stdin: true, stdout: true, stderr: true, hijack: true },
    true,
    { 101: true, 200: true, 404: 'no such container', 409: 'container is paused', 500: 'server error' },
  );
}

function dialAttached(
  container: Docker.Container,
  path: string,
  options: Record<string, boolean>,
  stdin: boolean,
  statusCodes: Record<number, true | string>,
): Promise<Duplex> {
  const entry = attachmentsOf(container);
  if (entry.removed) return Promise.reject(new ContainerError(`container ${container.id.slice(0, 12)} was removed`));
  return new Promise((resolve, reject) => {
    (container.modem as { dial(opts: unknown, cb: (err: Error | null, data: unknown) => void): void }).dial(
      { path, method: 'POST', abortSignal: entry.abort.signal, hijack: true, openStdin: stdin, statusCodes, options },
      (err, data) => {
        if (err) return reject(err);
        const sock = data as Duplex;
        if (entry.removed) {
          sock.destroy();
          return reject(new ContainerError(`container ${container.id.slice(0, 12)} was removed`));
        }
        entry.sockets.add(sock);
        sock.once('close', () => entry.sockets.delete(sock));
        resolve(sock);
      },
    );
  });
}

/** Called once the container is gone: no attach connection of it stays open or pending. */
export function closeAttached(container: Docker.Container): void {
  const entry = attachmentsOf(container);
  entry.removed = true;
  entry.abort.abort();
  for (const sock of entry.sockets) sock.destroy();
  entry.sockets.clear();
}

/** Runs `argv` to completion. */
export async function runExec(
  container: Docker.Container,
  argv: string[],
  opts: ExecOptions = {},
): Promise<ExecResult> {
  return (await spawnExec(container, argv, opts)).done;
}

/** A spawned command whose stdin stays open for the caller. */
export interface InteractiveExec extends RunningExec {
  readonly stdin: NodeJS.WritableStream;
  /**
   * From now on its stdout's bytes go to `to` as they arrive, not to
   * `onOutput` (a byte stream riding on it: docs/hud-protocol.md).
   */
  divertStdout(to: (payload: Buffer) => void): void;
}

/** What watchAttached gives: a running command whose stdout may be diverted. */
type Watched = RunningExec & Pick<InteractiveExec, 'divertStdout'>;

/** Starts `argv` and returns once it runs; `done` settles when it ends. */
export async function spawnExec(container: Docker.Container, argv: string[], opts?: ExecOptions): Promise<RunningExec>;
export async function spawnExec(
  container: Docker.Container,
  argv: string[],
  opts: ExecOptions,
  keepStdinOpen: true,
): Promise<InteractiveExec>;
export async function spawnExec(
  container: Docker.Container,
  argv: string[],
  opts: ExecOptions = {},
  keepStdinOpen = false,
): Promise<RunningExec | InteractiveExec> {
  if (opts.signal?.aborted) throw new CancelledError(`command ${argv[0] ?? ''}`);
  const marker = `${EXEC_MARKER_VAR}=${randomUUID()}`;
  const env = Object.entries(opts.env ?? {}).map(([k, v]) => `${k}=${v}`);
  env.push(marker);
  const hasStdin = opts.stdin !== undefined || keepStdinOpen;
  let exec: Docker.Exec;
  let sock: Duplex;
  try {
    exec = await container.exec({
      Cmd: argv,
      Env: env,
      AttachStdin: hasStdin,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      ...(opts.cwd ? { WorkingDir: opts.cwd } : {}),
      ...(opts.user ? { User: opts.user } : {}),
    });
    sock = await startAttached(container, exec, hasStdin);
  } catch (err) {
    throw new ContainerError(
      `could not start \`${argv.join(' ')}\` in container ${container.id.slice(0, 12)}: ${dockerMessage(err)}`,
      { cause: err },
    );
  }
  const kill = (sig: 'TERM' | 'KILL' | 'INT' = 'TERM'): Promise<void> => signalMarked(container, marker, sig);
  const running = watchAttached(sock, opts, () => exitCodeOf(exec), kill);
  if (keepStdinOpen) return { ...running, stdin: sock };
  if (hasStdin) sock.end(opts.stdin);
  return running;
}

/**
 * A running process seen through its attach connection: its output to
 * `opts.onOutput`, `done` once the connection ends (then `exitCode` is asked),
 * with the timeout and cancel of `opts`.
 */
export function watchAttached(
  sock: Duplex,
  opts: ExecOptions,
  exitCode: () => Promise<number | null>,
  kill: (sig?: 'TERM' | 'KILL' | 'INT') => Promise<void>,
): Watched {
  const outputEnded = new Promise<void>((resolve) => {
    sock
      .once('end', resolve)
      .once('close', resolve)
      .once('error', () => resolve());
  });
  const route: Route = {};
  return {
    done: collect(sock, opts, kill, exitCode, route),
    outputEnded,
    kill,
    divertStdout: (to) => (route.stdout = to),
  };
}

interface Route {
  stdout?: (payload: Buffer) => void;
}

function collect(
  sock: Duplex,
  opts: ExecOptions,
  kill: (sig: 'KILL') => Promise<void>,
  exitCode: () => Promise<number | null>,
  route: Route,
): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const captured = { stdout: new TailCapture(), stderr: new TailCapture() };
    const demux = new Demuxer((stream, payload) => {
      if (stream === 'stdin') return;
      if (stream === 'stdout' && route.stdout) return route.stdout(payload);
      const text = captured[stream].write(payload);
      if (text) opts.onOutput?.(stream, text);
    });
    let timedOut = false;
    let cancelled = false;
    let grace: NodeJS.Timeout | undefined;
    const stop = (why: 'timeout' | 'cancel'): void => {
      if (timedOut || cancelled) return;
      if (why === 'timeout') timedOut = true;
      else cancelled = true;
      kill('KILL').catch(() => undefined);
      // A process that escaped the kill may still hold the output open.
      grace = setTimeout(() => sock.destroy(), KILL_GRACE_MS);
    };
    const timer = opts.timeoutMs !== undefined ? setTimeout(() => stop('timeout'), opts.timeoutMs) : undefined;
    const onAbort = (): void => stop('cancel');
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    let finished = false;
    const finish = (err?: Error): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearTimeout(grace);
      opts.signal?.removeEventListener('abort', onAbort);
      for (const s of ['stdout', 'stderr'] as const) {
        const rest = captured[s].end();
        if (rest) opts.onOutput?.(s, rest);
      }
      const result = (exitCode: number | null): ExecResult => ({
        exitCode: timedOut || cancelled ? null : exitCode,
        stdout: captured.stdout.text(),
        stderr: captured.stderr.text(),
        timedOut,
      });
      if (err && !timedOut && !cancelled) {
        reject(new ContainerError(`lost the output of a command: ${err.message}`, { cause: err }));
        return;
      }
      exitCode().then(
        (code) => resolve(result(code)),
        () => resolve(result(null)),
      );
    };
    sock.on('data', (chunk: Buffer) => demux.push(chunk));
    sock.on('end', () => finish());
    sock.on('close', () => finish());
    sock.on('error', (err) => finish(err));
  });
}

/** The exit code, once the daemon has noticed the process ended. */
async function exitCodeOf(exec: Docker.Exec): Promise<number | null> {
  for (let i = 0; i < 80; i++) {
    const info = await exec.inspect();
    if (!info.Running) return info.ExitCode ?? null;
    await delay(25);
  }
  return null;
}

async function signalMarked(container: Docker.Container, marker: string, sig: 'TERM' | 'KILL' | 'INT'): Promise<void> {
  const exec = await container.exec({
    Cmd: ['sh', '-c', KILL_SCRIPT, 'hud-studio-kill', sig, marker],
    User: '0',
    AttachStdout: true,
    AttachStderr: true,
  });
  const sock = await startAttached(container, exec, false);
  await new Promise<void>((resolve) => {
    sock.on('close', () => resolve());
    sock.on('end', () => resolve());
    sock.on('error', () => resolve());
    sock.resume();
  });
}
