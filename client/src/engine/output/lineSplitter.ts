/**
 * The engine's one line splitter, for every byte stream it reads: the
 * control channel, server and agent output, Docker build progress, relays.
 *
 * Linear in the input: an unfinished line is kept as a list of chunks and
 * joined once, when its newline arrives or it grows past `maxLineBytes`.
 * A line without end never holds more than `maxLineBytes`: it either fails
 * (`overlong: 'fail'`, for framed protocols) or is handed on in pieces
 * (`overlong: 'split'`, for logs), each cut at a UTF-8 character boundary so
 * that no character is torn in two. See docs/reliability.md.
 */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;
/** Pieces of a log line longer than this are handed on separately. */
export const MAX_LOG_LINE_BYTES = 1024 * 1024;

export class FrameTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`frame exceeds ${limit} bytes without a newline`);
    this.name = 'FrameTooLargeError';
  }
}

/** `ended` is false for a piece of a longer line whose rest follows. */
export type LineHandler = (line: string, ended: boolean) => void;

export interface LineSplitterOptions {
  maxLineBytes?: number;
  /** What to do with a line longer than `maxLineBytes`: throw, or hand it on in pieces (default). */
  overlong?: 'fail' | 'split';
}

export class LineSplitter {
  private chunks: Buffer[] = [];
  private pending = 0;
  private readonly maxLineBytes: number;
  private readonly overlong: 'fail' | 'split';

  constructor(
    private readonly onLine: LineHandler,
    options: LineSplitterOptions = {},
  ) {
    this.maxLineBytes = Math.max(4, options.maxLineBytes ?? MAX_LOG_LINE_BYTES);
    this.overlong = options.overlong ?? 'split';
  }

  push(data: Buffer | string): void {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let start = 0;
    for (;;) {
      const nl = bytes.indexOf(0x0a, start);
      if (nl < 0) break;
      this.take(bytes.subarray(start, nl));
      this.emit(this.drain(this.pending), true);
      start = nl + 1;
    }
    if (start < bytes.length) this.take(bytes.subarray(start));
  }

  /** Hands on a last line that had no newline (a process may end without one). */
  end(): void {
    if (this.pending > 0) this.emit(this.drain(this.pending), true);
  }

  /** Bytes of an unfinished line still held. */
  get buffered(): number {
    return this.pending;
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    this.chunks.push(piece);
    this.pending += piece.length;
    while (this.pending > this.maxLineBytes) {
      if (this.overlong === 'fail') {
        this.chunks = [];
        this.pending = 0;
        throw new FrameTooLargeError(this.maxLineBytes);
      }
      const joined = this.drain(this.pending);
      const cut = utf8Boundary(joined, this.maxLineBytes);
      this.onLine(joined.subarray(0, cut).toString('utf8'), false);
      const rest = joined.subarray(cut);
      if (rest.length) {
        this.chunks.push(rest);
        this.pending = rest.length;
      }
    }
  }

  private drain(length: number): Buffer {
    const joined = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, length);
    this.chunks = [];
    this.pending = 0;
    return joined;
  }

  private emit(line: Buffer, ended: boolean): void {
    const end = line.length > 0 && line[line.length - 1] === 0x0d ? line.length - 1 : line.length;
    this.onLine(line.subarray(0, end).toString('utf8'), ended);
  }
}

/** The largest index <= `at` that does not fall inside a multi-byte UTF-8 character. */
export function utf8Boundary(bytes: Buffer, at: number): number {
  let i = Math.min(at, bytes.length);
  // Continuation bytes look like 10xxxxxx; step back at most 3 of them.
  for (let k = 0; k < 3 && i > 0 && i < bytes.length && (bytes[i]! & 0xc0) === 0x80; k++) i--;
  return i === 0 ? Math.min(at, bytes.length) : i;
}
