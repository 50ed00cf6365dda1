import type { Fix } from '../../../common/fix';

/**
 * Typed errors shared by the engine, the CLI and the extension. Every error a
 * user can cause names where (file, line when known) and how to fix it, so the
 * UI layers only have to render `message` + `hint`.
 */

export type ErrorCode =
  | 'usage'
  | 'task-load'
  | 'task-ref'
  | 'protocol'
  | 'provider'
  | 'docker-unavailable'
  | 'timeout'
  | 'cancelled'
  | 'agent'
  | 'grade'
  | 'harbor-config'
  | 'harbor-verifier'
  | 'trace';

export interface ErrorLocation {
  file: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  column?: number;
  /** Dotted key path for structured files (task.toml). */
  key?: string;
}

export class HudStudioError extends Error {
  readonly code: ErrorCode;
  readonly location: ErrorLocation | undefined;
  readonly hint: string | undefined;
  /** A change the front end words itself (flag or setting); `hint` stays free of either. */
  readonly fix: Fix | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { location?: ErrorLocation; hint?: string; fix?: Fix; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = code;
    this.location = opts.location;
    this.hint = opts.hint;
    this.fix = opts.fix;
  }

  /** One line a person can act on: `file:line: message (fix: hint)`. */
  describe(): string {
    const where = this.location
      ? `${this.location.file}${this.location.line ? `:${this.location.line}` : ''}${this.location.column ? `:${this.location.column}` : ''}${this.location.key ? ` [${this.location.key}]` : ''}: `
      : '';
    return `${where}${this.message}${this.hint ? ` (fix: ${this.hint})` : ''}`;
  }
}

export class UsageError extends HudStudioError {
  constructor(message: string, opts: { hint?: string; fix?: Fix } = {}) {
    super('usage', message, opts);
  }
}

export class ProtocolError extends HudStudioError {
  /** JSON-RPC error code when the peer sent one. */
  readonly rpcCode: number | undefined;
  constructor(message: string, opts: { rpcCode?: number; hint?: string; fix?: Fix; cause?: unknown } = {}) {
    super('protocol', message, opts);
    this.rpcCode = opts.rpcCode;
  }
}

export class TimeoutError extends HudStudioError {
  readonly timeoutMs: number;
  constructor(what: string, timeoutMs: number, opts: { hint?: string } = {}) {
    super('timeout', `${what} timed out after ${formatMs(timeoutMs)}`, opts);
    this.timeoutMs = timeoutMs;
  }
}

export class CancelledError extends HudStudioError {
  constructor(what = 'rollout') {
    super('cancelled', `${what} was cancelled`);
  }
}

/** Throws CancelledError when the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined, what?: string): void {
  if (signal?.aborted) throw new CancelledError(what);
}

/** The front-end-neutral change that would fix `err`, when the engine knows one. */
export function fixOf(err: unknown): Fix | undefined {
  return err instanceof HudStudioError ? err.fix : undefined;
}

/** Best-effort human message for anything thrown. */
export function errorMessage(err: unknown): string {
  if (err instanceof HudStudioError) return err.describe();
  if (err instanceof Error) return err.message;
  return String(err);
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s` : `${ms} ms`;
}
