/**
 * What a command's result keeps of one output stream: its last
 * MAX_CAPTURE_BYTES bytes, with a marker when earlier output was dropped.
 * Callbacks see every chunk; only the result is bounded
 * (docs/reliability.md).
 *
 * The tail is kept as bytes, outside the JavaScript heap, and decoded once,
 * when the result is read: a tail of strings lives long enough to be
 * promoted, so a flood of output would fill the old generation with garbage
 * and the process's memory would climb with the size of the flood.
 */
import { StringDecoder } from 'node:string_decoder';

/** Output kept per stream in a command's result. */
export const MAX_CAPTURE_BYTES = 8 * 1024 * 1024;

export class TailCapture {
  private readonly decoder = new StringDecoder('utf8');
  private parts: Buffer[] = [];
  private size = 0;
  private dropped = false;

  constructor(private readonly maxBytes = MAX_CAPTURE_BYTES) {}

  /** Keeps `chunk` (UTF-8 split anywhere) and returns its text, whole characters only. */
  write(chunk: Buffer): string {
    if (chunk.length === 0) return '';
    // A copy: a slice would hold on to the whole socket read it came from.
    this.parts.push(Buffer.from(chunk));
    this.size += chunk.length;
    while (this.size - this.parts[0]!.length >= this.maxBytes) {
      this.size -= this.parts.shift()!.length;
      this.dropped = true;
    }
    return this.decoder.write(chunk);
  }

  /** The rest of a character split at the very end, if any. */
  end(): string {
    return this.decoder.end();
  }

  text(): string {
    let bytes = Buffer.concat(this.parts, this.size);
    let dropped = this.dropped;
    if (bytes.length > this.maxBytes) {
      bytes = bytes.subarray(bytes.length - this.maxBytes);
      dropped = true;
    }
    if (dropped) {
      // Start at a whole character: skip the continuation bytes (10xxxxxx) of one that was cut.
      let start = 0;
      while (start < 3 && start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
      return `[... earlier output dropped ...]\n${bytes.subarray(start).toString('utf8')}`;
    }
    return bytes.toString('utf8');
  }
}
