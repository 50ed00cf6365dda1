/**
 * What a command's result keeps of one output stream: the last
 * MAX_CAPTURE_CHARS characters, with a marker when earlier output was
 * dropped. Callbacks see every chunk; only the result is bounded
 * (docs/reliability.md).
 */
import { StringDecoder } from 'node:string_decoder';

/** Output kept per stream in a command's result. */
export const MAX_CAPTURE_CHARS = 8 * 1024 * 1024;

export class TailCapture {
  private readonly decoder = new StringDecoder('utf8');
  private parts: string[] = [];
  private size = 0;
  private dropped = false;

  constructor(private readonly maxChars = MAX_CAPTURE_CHARS) {}

  /** Decodes `chunk` (UTF-8 split anywhere) and returns its text. */
  write(chunk: Buffer | string): string {
    return this.keep(typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
  }

  /** The rest of a character split at the very end, if any. */
  end(): string {
    return this.keep(this.decoder.end());
  }

  text(): string {
    const body = this.parts.join('');
    return this.dropped ? `[... earlier output dropped ...]\n${body}` : body;
  }

  private keep(text: string): string {
    if (!text) return text;
    this.parts.push(text);
    this.size += text.length;
    while (this.size > this.maxChars && this.parts.length > 1) {
      this.size -= this.parts.shift()!.length;
      this.dropped = true;
    }
    if (this.size > this.maxChars && this.parts.length === 1) {
      const only = this.parts[0]!;
      this.parts = [only.slice(only.length - this.maxChars)];
      this.size = this.maxChars;
      this.dropped = true;
    }
    return text;
  }
}
