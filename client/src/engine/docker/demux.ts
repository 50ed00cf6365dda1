/**
 * Splits Docker's multiplexed attach stream (no TTY): frames of an 8-byte
 * header (stream type, 3 zero bytes, big-endian length) and a payload.
 * A TTY would merge stdout and stderr and rewrite bytes, so execs never use one.
 *
 * Linear in the input: chunks wait in a list and are joined once per frame
 * (joining on every chunk made a 20 MB frame quadratic; docs/reliability.md).
 */
export type DockerStream = 'stdin' | 'stdout' | 'stderr';

const TYPES: Record<number, DockerStream> = { 0: 'stdin', 1: 'stdout', 2: 'stderr' };

export class Demuxer {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Header of the frame whose payload is still arriving. */
  private frame: { type: DockerStream; len: number } | undefined;

  constructor(private readonly onFrame: (stream: DockerStream, payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    for (;;) {
      if (!this.frame) {
        if (this.size < 8) return;
        const header = this.take(8);
        this.frame = { type: TYPES[header[0]!] ?? 'stdout', len: header.readUInt32BE(4) };
      }
      if (this.size < this.frame.len) return;
      const { type, len } = this.frame;
      this.frame = undefined;
      if (len > 0) this.onFrame(type, this.take(len));
    }
  }

  private take(n: number): Buffer {
    const joined = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    const out = joined.subarray(0, n);
    const rest = joined.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.size = rest.length;
    return out;
  }
}
