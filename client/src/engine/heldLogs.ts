/**
 * Log lines of a substrate made before the phase that will use it has begun
 * (the verifier's, made while the actor works or just before its header,
 * which names the substrate; a regrade batch's next one): held until that
 * phase takes it, then replayed in order, and every later line passed
 * straight on.
 */
import type { LogStream } from '../../../common/trace/schema';

export type LogSink = (stream: LogStream, text: string) => void;

export class HeldLogs {
  private held: [LogStream, string][] | undefined = [];
  private sink: LogSink | undefined;

  readonly log: LogSink = (stream, text) => {
    if (this.held) this.held.push([stream, text]);
    else this.sink?.(stream, text);
  };

  replay(sink: LogSink): void {
    for (const [stream, text] of this.held ?? []) sink(stream, text);
    this.held = undefined;
    this.sink = sink;
  }
}
