/**
 * Turns a byte stream into whole UTF-8 lines: chunks from Docker split lines
 * and multi-byte characters anywhere.
 */
import { StringDecoder } from 'node:string_decoder';

export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Buffer | string): void {
    this.pending += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    let nl: number;
    while ((nl = this.pending.indexOf('\n')) >= 0) {
      const line = this.pending.slice(0, nl).replace(/\r$/, '');
      this.pending = this.pending.slice(nl + 1);
      this.onLine(line);
    }
  }

  /** Emits a last line that had no newline. */
  end(): void {
    this.pending += this.decoder.end();
    if (this.pending) this.onLine(this.pending.replace(/\r$/, ''));
    this.pending = '';
  }
}
