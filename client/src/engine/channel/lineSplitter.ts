/**
 * Splits a byte stream into newline-terminated frames without ever holding
 * more than `maxBytes` of an unfinished line: a peer that streams a line
 * without end must not exhaust our memory (docs/hud-protocol.md: 64 MiB).
 */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

export class FrameTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`frame exceeds ${limit} bytes without a newline`);
  }
}

export class LineSplitter {
  private chunks: Buffer[] = [];
  private pending = 0;

  constructor(private readonly maxBytes: number = MAX_FRAME_BYTES) {}

  /** Feeds bytes; returns the complete lines (without `\n`, decoded as UTF-8). */
  push(data: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const nl = data.indexOf(0x0a, start);
      if (nl < 0) break;
      const piece = data.subarray(start, nl);
      if (this.pending + piece.length > this.maxBytes) throw new FrameTooLargeError(this.maxBytes);
      this.chunks.push(piece);
      const line = Buffer.concat(this.chunks, this.pending + piece.length).toString('utf8');
      this.chunks = [];
      this.pending = 0;
      lines.push(line.endsWith('\r') ? line.slice(0, -1) : line);
      start = nl + 1;
    }
    if (start < data.length) {
      const rest = data.subarray(start);
      if (this.pending + rest.length > this.maxBytes) throw new FrameTooLargeError(this.maxBytes);
      this.chunks.push(rest);
      this.pending += rest.length;
    }
    return lines;
  }

  /** Bytes of an unfinished line still buffered (a peer that closed mid-frame). */
  get buffered(): number {
    return this.pending;
  }
}
