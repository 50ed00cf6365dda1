/**
 * Requests to the pre-started server's interpreter, on its stdin: the copy
 * of the runtime and the environment's folder (runtime/python/hud_studio/
 * unpack.py), which saves a `putArchive`, and discovery, which it runs in a
 * forked child (hud_studio/prestart.py), so that discovery starts no
 * interpreter of its own. Replies arrive on that interpreter's stdout as one
 * line `HUD_STUDIO_REPLY NONCE JSON`; the nonce is fresh per request, and
 * every other line passes through untouched.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { LineSplitter, MAX_FRAME_BYTES } from '../output/lineSplitter';
import type { InteractiveExec } from '../docker/exec';
import { CancelledError } from '../errors';
import type { ExecOptions, ExecResult } from './provider';

const ENVELOPE = 'HUD_STUDIO_REPLY ';

const CopyReply = z.union([z.object({ copied: z.literal(true) }), z.object({ error: z.string() })]);
/** How a copy through the interpreter ended; undefined when the interpreter ended without answering. */
export type CopyOutcome = z.infer<typeof CopyReply> | undefined;

const Reply = z.union([
  z.object({ unavailable: z.literal(true) }),
  z.object({
    exit: z.number().int().nullable(),
    signal: z.number().int().nullable(),
    stdout: z.string(),
    stderr: z.string(),
  }),
]);
type Reply = z.infer<typeof Reply>;

/** Splits the pre-started interpreter's stdout into replies and everything else. */
export class PrestartedReplies {
  private readonly waiting = new Map<string, (reply: unknown) => void>();
  /** Requests given up on (timeout, cancel) whose late replies are dropped, not passed on as output. */
  private readonly abandoned = new Set<string>();
  /** Set once the interpreter ended or was handed over: later requests get undefined at once. */
  private closed = false;
  private readonly lines: LineSplitter;

  constructor(forward: (text: string) => void) {
    this.lines = new LineSplitter(
      (line, ended) => {
        if (ended && line.startsWith(ENVELOPE)) {
          const rest = line.slice(ENVELOPE.length);
          const space = rest.indexOf(' ');
          const nonce = rest.slice(0, space);
          if (space > 0 && this.abandoned.delete(nonce)) return;
          const settle = this.waiting.get(nonce);
          if (space > 0 && settle) {
            settle(parseJson(rest.slice(space + 1)));
            return;
          }
        }
        forward(ended ? `${line}\n` : line);
      },
      // A reply carries discovery's whole output in one line.
      { maxLineBytes: MAX_FRAME_BYTES },
    );
  }

  push(text: string): void {
    this.lines.push(text);
  }

  /** The interpreter ended or is handed over: nothing more will be answered. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.lines.end();
    for (const settle of [...this.waiting.values()]) settle(undefined);
  }

  /**
   * Streams `archive` to an interpreter started with unpack.py's source and
   * waits for it to be unpacked. `signal` ends the wait (undefined), the
   * caller then removes the container.
   */
  async copy(warm: InteractiveExec, archive: Readable, signal: AbortSignal): Promise<CopyOutcome> {
    if (this.closed) {
      archive.destroy();
      return undefined;
    }
    const nonce = randomUUID();
    const answered = new Promise<unknown>((resolve) => {
      const settle = (reply: unknown): void => {
        if (!this.waiting.delete(nonce)) return;
        signal.removeEventListener('abort', onAbort);
        resolve(reply);
      };
      const onAbort = (): void => settle(undefined);
      this.waiting.set(nonce, settle);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    warm.stdin.write(`${JSON.stringify({ copy: nonce })}\n`);
    // Written alongside the wait: the interpreter may answer (an error) or end before it has read everything.
    const stopWriting = new AbortController();
    let hostError: string | undefined;
    const writing = writeChunked(archive, warm.stdin, stopWriting.signal).catch((err: unknown) => {
      // A host file that cannot be read says more than the interpreter's "archive ended early".
      if (!stopWriting.signal.aborted) hostError = err instanceof Error ? err.message : String(err);
      // A half-sent archive: end of input makes the interpreter answer with an error and exit.
      warm.stdin.end();
    });
    const reply = await answered;
    stopWriting.abort();
    archive.destroy();
    await writing;
    if (hostError !== undefined) return { error: hostError };
    const parsed = CopyReply.safeParse(reply);
    return parsed.success ? parsed.data : undefined;
  }

  /**
   * Runs `python3 -m hud_studio.discover ARGS` in a child of `warm`, with the
   * plain exec's result, timeout and cancel semantics. Undefined means "use
   * the plain exec" (no fork there, or the interpreter ended first). On
   * timeout or cancel the whole interpreter is killed (`giveUp`), children included.
   */
  request(
    warm: InteractiveExec,
    args: string[],
    opts: ExecOptions & { cwd: string },
    giveUp: () => Promise<void>,
  ): Promise<ExecResult | undefined> {
    if (opts.signal?.aborted) return Promise.reject(new CancelledError('command python3'));
    if (this.closed) return Promise.resolve(undefined);
    const nonce = randomUUID();
    return new Promise<ExecResult | undefined>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const settled = (): boolean => {
        if (!this.waiting.delete(nonce)) return false;
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        return true;
      };
      // Like the plain exec, a stopped discovery returns once its processes were signalled.
      const stop = (timedOut: boolean): void => {
        if (!settled()) return;
        this.abandoned.add(nonce);
        void giveUp().then(() => resolve({ exitCode: null, stdout: '', stderr: '', timedOut }));
      };
      const onAbort = (): void => stop(false);
      this.waiting.set(nonce, (reply) => {
        if (!settled()) return;
        const parsed = Reply.safeParse(reply);
        resolve(parsed.success ? toResult(parsed.data, opts) : undefined);
      });
      if (opts.timeoutMs !== undefined) timer = setTimeout(() => stop(true), opts.timeoutMs);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      warm.stdin.write(`${JSON.stringify({ discover: args, nonce, cwd: opts.cwd, env: opts.env ?? {} })}\n`);
    });
  }
}

function parseJson(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

/** The framing unpack.py reads: each chunk as a line with its length, then its bytes; a zero length ends it. */
async function writeChunked(archive: Readable, sink: NodeJS.WritableStream, signal: AbortSignal): Promise<void> {
  for await (const chunk of archive) {
    if (signal.aborted) return;
    const bytes = chunk as Buffer;
    if (bytes.length === 0) continue;
    if (!sink.write(Buffer.concat([Buffer.from(`${bytes.length}\n`), bytes])))
      await once(sink as unknown as NodeJS.EventEmitter, 'drain', { signal });
  }
  sink.write('0\n');
}

// A signalled child reports 128 + signal, as `docker exec` does for a signalled command.
function toResult(reply: Reply, opts: ExecOptions): ExecResult | undefined {
  if ('unavailable' in reply) return undefined;
  if (reply.stdout) opts.onOutput?.('stdout', reply.stdout);
  if (reply.stderr) opts.onOutput?.('stderr', reply.stderr);
  return {
    exitCode: reply.signal !== null ? 128 + reply.signal : reply.exit,
    stdout: reply.stdout,
    stderr: reply.stderr,
    timedOut: false,
  };
}
