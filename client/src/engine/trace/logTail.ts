/**
 * The tail of a phase's log, first in first out, packed as records in
 * buffers outside the JavaScript heap.
 *
 * Why not an array of entries: every line of a flood passes through the
 * tail and stays there until megabytes of newer lines push it out, so each
 * one outlives the young generation and is promoted; the old generation
 * then fills with garbage as fast as the rollout prints, and the process's
 * memory climbs with the size of the output (docs/reliability.md). Packed
 * bytes are copied in and out; nothing per line outlives its event.
 *
 * A record: t (float64), stream (uint8), characters (uint32), bytes
 * (uint32), then the text's UTF-8 bytes. Records never straddle segments.
 */
import { LogStream, type TraceLog } from '../../../../common/trace/schema';

const SEGMENT_BYTES = 1024 * 1024;
const HEADER_BYTES = 8 + 1 + 4 + 4;
const STREAMS = LogStream.options;

interface Segment {
  readonly buf: Buffer;
  /** Where the next record is written. */
  end: number;
  /** Where the oldest record still held starts. */
  start: number;
}

export class LogTail {
  private segments: Segment[] = [];
  /** One emptied segment kept for reuse, so a steady flood allocates nothing. */
  private spare: Buffer | undefined;
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(entry: TraceLog): void {
    const most = HEADER_BYTES + entry.text.length * 3;
    let seg = this.segments[this.segments.length - 1];
    if (!seg || seg.buf.length - seg.end < most) {
      const need = HEADER_BYTES + Buffer.byteLength(entry.text, 'utf8');
      if (!seg || seg.buf.length - seg.end < need) seg = this.addSegment(need);
    }
    const at = seg.end;
    const bytes = seg.buf.write(entry.text, at + HEADER_BYTES, 'utf8');
    seg.buf.writeDoubleLE(entry.t, at);
    seg.buf.writeUInt8(STREAMS.indexOf(entry.stream), at + 8);
    seg.buf.writeUInt32LE(entry.text.length, at + 9);
    seg.buf.writeUInt32LE(bytes, at + 13);
    seg.end = at + HEADER_BYTES + bytes;
    this.count += 1;
  }

  /** Drops the oldest record; returns its text's length in characters. */
  shift(): number {
    const seg = this.segments[0];
    if (!seg || seg.start === seg.end) return 0;
    const chars = seg.buf.readUInt32LE(seg.start + 9);
    seg.start += HEADER_BYTES + seg.buf.readUInt32LE(seg.start + 13);
    this.count -= 1;
    if (seg.start === seg.end) {
      this.segments.shift();
      if (seg.buf.length === SEGMENT_BYTES) this.spare = seg.buf;
    }
    return chars;
  }

  /** Every record held, oldest first. */
  *entries(): Generator<TraceLog> {
    for (const seg of this.segments) {
      let at = seg.start;
      while (at < seg.end) {
        const bytes = seg.buf.readUInt32LE(at + 13);
        yield {
          t: seg.buf.readDoubleLE(at),
          stream: STREAMS[seg.buf.readUInt8(at + 8)]!,
          text: seg.buf.toString('utf8', at + HEADER_BYTES, at + HEADER_BYTES + bytes),
        };
        at += HEADER_BYTES + bytes;
      }
    }
  }

  private addSegment(need: number): Segment {
    let buf: Buffer;
    if (need <= SEGMENT_BYTES && this.spare) {
      buf = this.spare;
      this.spare = undefined;
    } else {
      buf = Buffer.allocUnsafe(Math.max(SEGMENT_BYTES, need));
    }
    const seg: Segment = { buf, end: 0, start: 0 };
    this.segments.push(seg);
    return seg;
  }
}
