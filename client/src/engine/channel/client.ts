/**
 * Typed client of the control channel (docs/hud-protocol.md) over any byte stream:
 * a TCP socket to a local server, or a relay stream into a container. One
 * JSON-RPC 2.0 object per line; every request has an id, a timeout and an
 * optional AbortSignal. Anything the peer sends that breaks the protocol
 * rejects with a ProtocolError and closes the channel, because after a bad
 * frame we can no longer tell which answer belongs to which request.
 */
import type { Duplex } from 'node:stream';
import type { z } from 'zod';
import { CancelledError, ProtocolError, TimeoutError } from '../errors';
import { FrameTooLargeError, LineSplitter, MAX_FRAME_BYTES } from '../output/lineSplitter';
import { MAX_FRAME_NESTING, nestsDeeperThan } from './nesting';
import {
  ByeResult,
  CancelResult,
  GradeFrame,
  HelloResult,
  NotificationFrame,
  JsonRpcError,
  PromptFrame,
  ResponseEnvelope,
  TaskListResult,
} from './messages';

export interface ChannelOptions {
  /** Default per-request timeout; `tasks.start`/`tasks.grade` usually pass their own. */
  requestTimeoutMs?: number;
  maxFrameBytes?: number;
  /** Frames the server sends without an id (progress, logs). */
  onNotification?: (frame: NotificationFrame) => void;
}

export interface RequestOptions {
  /** 0 or Infinity: no timeout. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface Pending {
  method: string;
  resolve(value: unknown): void;
  reject(err: Error): void;
}

const DEFAULT_TIMEOUT_MS = 30_000;

export class ControlChannel {
  private readonly splitter: LineSplitter;
  /** Lines split from the chunk being read, handled once the chunk is split. */
  private lines: string[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closedWith: ProtocolError | undefined;
  private readonly closedPromise: Promise<void>;
  private markClosed!: () => void;

  constructor(
    private readonly stream: Duplex,
    private readonly options: ChannelOptions = {},
  ) {
    this.splitter = new LineSplitter((line) => this.lines.push(line), {
      maxLineBytes: options.maxFrameBytes ?? MAX_FRAME_BYTES,
      overlong: 'fail',
    });
    this.closedPromise = new Promise((resolve) => (this.markClosed = resolve));
    stream.on('data', (chunk: Buffer | string) => this.onData(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    stream.on('error', (err: Error) =>
      this.fail(new ProtocolError(`control channel failed: ${err.message}`, { cause: err })),
    );
    stream.on('close', () => this.fail(new ProtocolError('control channel closed by the server')));
    stream.on('end', () => this.fail(new ProtocolError('control channel closed by the server')));
  }

  /** Resolves once the channel is closed for any reason. */
  get closed(): Promise<void> {
    return this.closedPromise;
  }

  get isClosed(): boolean {
    return this.closedWith !== undefined;
  }

  hello(sessionId?: string, opts?: RequestOptions): Promise<HelloResult> {
    return this.call('hello', sessionId === undefined ? {} : { session_id: sessionId }, HelloResult, opts);
  }

  listTasks(opts?: RequestOptions): Promise<TaskListResult> {
    return this.call('tasks.list', {}, TaskListResult, opts);
  }

  start(id: string, args: Record<string, unknown>, opts?: RequestOptions): Promise<PromptFrame> {
    return this.call('tasks.start', { id, args }, PromptFrame, opts);
  }

  /** Resolves with the grade frame exactly as the server sent it (validated, not reshaped). */
  async grade(answer: unknown, opts?: RequestOptions): Promise<GradeFrame> {
    const raw = await this.request('tasks.grade', { answer }, opts);
    const parsed = GradeFrame.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join('.') || 'score';
      const what = field === 'score' ? 'without a numeric "score"' : `with an unreadable "${field}"`;
      throw new ProtocolError(`tasks.grade returned a result ${what}: ${preview(raw)}`, {
        hint: 'the template\'s second yield must be a number, an EvaluationResult or a dict with a numeric "score"',
      });
    }
    // The raw object, not zod's copy: the verifier must receive it unchanged.
    return raw as GradeFrame;
  }

  async cancel(opts?: RequestOptions): Promise<boolean> {
    return (await this.call('tasks.cancel', {}, CancelResult, opts)).cancelled;
  }

  /** Says goodbye and closes our side; never throws (the peer may already be gone). */
  async bye(opts?: RequestOptions): Promise<void> {
    try {
      if (!this.isClosed) await this.call('bye', {}, ByeResult, { timeoutMs: 5_000, ...opts });
    } catch {
      // A server that vanished before saying goodbye has nothing left to close.
    } finally {
      this.close();
    }
  }

  /** Closes the stream and rejects what is still waiting. Idempotent. */
  close(): void {
    this.fail(new ProtocolError('control channel closed'));
  }

  async call<S extends z.ZodType>(
    method: string,
    params: unknown,
    schema: S,
    opts?: RequestOptions,
  ): Promise<z.infer<S>> {
    const raw = await this.request(method, params, opts);
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length ? issue.path.join('.') : 'result';
      throw new ProtocolError(
        `${method} returned an unexpected result (${where}: ${issue?.message ?? 'invalid'}): ${preview(raw)}`,
      );
    }
    return parsed.data;
  }

  /** Sends one request and resolves with its raw `result`. */
  request(method: string, params: unknown, opts: RequestOptions = {}): Promise<unknown> {
    if (this.closedWith) return Promise.reject(new ProtocolError(`cannot send ${method}: ${this.closedWith.message}`));
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(new CancelledError(method));
    const timeoutMs = opts.timeoutMs ?? this.options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = (): void => settle(() => reject(new CancelledError(method)));
      const settle = (fn: () => void): void => {
        if (!this.pending.delete(id)) return;
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        fn();
      };
      this.pending.set(id, {
        method,
        resolve: (v) => settle(() => resolve(v)),
        reject: (e) => settle(() => reject(e)),
      });
      if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
        timer = setTimeout(() => settle(() => reject(new TimeoutError(method, timeoutMs))), timeoutMs);
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.stream.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  private onData(chunk: Buffer): void {
    if (this.closedWith) return;
    try {
      this.splitter.push(chunk);
    } catch (err) {
      this.lines = [];
      const limit = err instanceof FrameTooLargeError ? err.limit : MAX_FRAME_BYTES;
      this.fail(new ProtocolError(`server sent a frame larger than ${limit} bytes`));
      return;
    }
    const lines = this.lines;
    this.lines = [];
    for (const line of lines) {
      if (line.trim() === '') continue;
      this.onLine(line);
      if (this.closedWith) return;
    }
  }

  private onLine(line: string): void {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.fail(new ProtocolError(`server sent a frame that is not JSON: ${preview(line)}`));
      return;
    }
    if (nestsDeeperThan(json, MAX_FRAME_NESTING)) {
      this.fail(new ProtocolError(`server sent a frame nested deeper than ${MAX_FRAME_NESTING} levels`));
      return;
    }
    const note = NotificationFrame.safeParse(json);
    if (note.success) {
      this.options.onNotification?.(note.data);
      return;
    }
    const envelope = ResponseEnvelope.safeParse(json);
    const body = json as Record<string, unknown>;
    const hasResult = envelope.success && 'result' in body;
    const error = envelope.success && 'error' in body ? JsonRpcError.safeParse(body['error']) : undefined;
    if (!envelope.success || hasResult === (error !== undefined) || (error && !error.success)) {
      this.fail(new ProtocolError(`server sent a frame that is not a JSON-RPC 2.0 response: ${preview(line)}`));
      return;
    }
    const { id } = envelope.data;
    const waiting = typeof id === 'number' ? this.pending.get(id) : undefined;
    if (error?.success) {
      const { code, message, data } = error.data;
      const err = new ProtocolError(`${waiting?.method ?? 'server'} failed: ${message} (JSON-RPC ${code})`, {
        rpcCode: code,
        ...(data === undefined ? {} : { cause: data }),
      });
      // An error without our id (e.g. a parse error) cannot be matched: it ends the session.
      if (waiting) waiting.reject(err);
      else this.fail(err);
      return;
    }
    // A response to a request that already timed out or was cancelled: drop it.
    waiting?.resolve(body['result']);
  }

  private fail(err: ProtocolError): void {
    if (this.closedWith) return;
    this.closedWith = err;
    for (const p of [...this.pending.values()]) p.reject(err);
    this.pending.clear();
    this.stream.destroy();
    this.markClosed();
  }
}

function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
