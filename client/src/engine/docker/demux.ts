/**
 * Splits Docker's multiplexed attach stream (no TTY): frames of an 8-byte
 * header (stream type, 3 zero bytes, big-endian length) and a payload.
 * A TTY would merge stdout and stderr and rewrite bytes, so execs never use one.
 */
export type DockerStream = 'stdin' | 'stdout' | 'stderr';

const TYPES: Record<number, DockerStream> = { 0: 'stdin', 1: 'stdout', 2: 'stderr' };

export class Demuxer {
  private buf: Buffer = Buffer.alloc(0);

  constructor(private readonly onFrame: (stream: DockerStream, payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    while (this.buf.length >= 8) {
      const len = this.buf.readUInt32BE(4);
      if (this.buf.length < 8 + len) break;
      const type = TYPES[this.buf[0]!] ?? 'stdout';
      const payload = this.buf.subarray(8, 8 + len);
      this.buf = this.buf.subarray(8 + len);
      if (len > 0) this.onFrame(type, payload);
    }
  }
}
