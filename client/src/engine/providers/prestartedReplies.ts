/**
 * Discovery answered by the pre-started server's interpreter (see
 * runtime/python/hud_studio/prestart.py): it forks a child per request, so
 * discovery starts no interpreter of its own. Replies arrive on that
 * interpreter's stdout as one line `HUD_STUDIO_DISCOVER NONCE JSON`; the nonce
 * is fresh per request, and every other line passes through untouched.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { LineSplitter } from '../docker/lines';
import type { InteractiveExec } from '../docker/exec';
import { CancelledError } from '../errors';
import type { ExecOptions, ExecResult } from './provider';

const ENVELOPE = 'HUD_STUDIO_DISCOVER ';

const Reply = z.union([
  z.object({ unavailable: z.literal(true) }),
  z.object({ exit: z.number().int().nullable(), signal: z.number().int().nullable(), stdout: z.string(), stderr: z.string() }),
]);
type Reply = z.infer<typeof Reply>;

/** Splits the pre-started interpreter's stdout into discovery replies and everything else. */
export class DiscoveryReplies {
  private readonly waiting = new Map<string, (reply: Reply | undefined) => void>();
  private readonly lines: LineSplitter;

  constructor(forward: (text: string) => void) {
    this.lines = new LineSplitter((line) => {
      if (line.startsWith(ENVELOPE)) {
        const rest = line.slice(ENVELOPE.length);
        const space = rest.indexOf(' ');
        const settle = this.waiting.get(rest.slice(0, space));
        if (space > 0 && settle) {
          settle(parseReply(rest.slice(space + 1)));
          return;
        }
      }
      forward(`${line}\n`);
    });
  }

  push(text: string): void {
    this.lines.push(text);
  }

  /** The interpreter ended or is handed over: nothing more will be answered. */
  close(): void {
    this.lines.end();
    for (const settle of [...this.waiting.values()]) settle(undefined);
  }

  /**
   * Runs `python3 -m hud_studio.discover ARGS` in a child of `warm`, with the
   * plain exec's result, timeout and cancel semantics. Undefined means "use
   * the plain exec" (no fork there, or the interpreter ended first). On
   * timeout or cancel the whole interpreter is killed (`giveUp`), children included.
   */
  request(warm: InteractiveExec, args: string[], opts: ExecOptions & { cwd: string }, giveUp: () => Promise<void>): Promise<ExecResult | undefined> {
    if (opts.signal?.aborted) return Promise.reject(new CancelledError('command python3'));
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
        if (settled()) void giveUp().then(() => resolve({ exitCode: null, stdout: '', stderr: '', timedOut }));
      };
      const onAbort = (): void => stop(false);
      this.waiting.set(nonce, (reply) => settled() && resolve(reply && toResult(reply, opts)));
      if (opts.timeoutMs !== undefined) timer = setTimeout(() => stop(true), opts.timeoutMs);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      warm.stdin.write(`${JSON.stringify({ discover: args, nonce, cwd: opts.cwd, env: opts.env ?? {} })}\n`);
    });
  }
}

function parseReply(json: string): Reply | undefined {
  try {
    const parsed = Reply.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

// A signalled child reports 128 + signal, as `docker exec` does for a signalled command.
function toResult(reply: Reply, opts: ExecOptions): ExecResult | undefined {
  if ('unavailable' in reply) return undefined;
  if (reply.stdout) opts.onOutput?.('stdout', reply.stdout);
  if (reply.stderr) opts.onOutput?.('stderr', reply.stderr);
  return { exitCode: reply.signal !== null ? 128 + reply.signal : reply.exit, stdout: reply.stdout, stderr: reply.stderr, timedOut: false };
}
