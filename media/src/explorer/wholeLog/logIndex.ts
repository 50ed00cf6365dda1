/**
 * A whole log (a side file beside the trace, docs/trace-format.md) indexed
 * once for the viewer: where every line starts in the text, and a lowercased
 * copy without escape sequences that one `indexOf` scan searches. Pure (no
 * DOM, no worker API) so the worker runs it and unit tests can too.
 */
import { plainTextOfLines } from '../ansi';

/** Offsets of every line start in `text` plus one past the end (the sentinel), lines split on `\n`. */
export function lineStarts(text: string): Uint32Array {
  let starts = new Uint32Array(1024);
  let n = 0;
  let pos = 0;
  const end = text.endsWith('\n') ? text.length - 1 : text.length;
  for (;;) {
    if (n + 1 >= starts.length) {
      const grown = new Uint32Array(starts.length * 2);
      grown.set(starts);
      starts = grown;
    }
    starts[n++] = pos;
    const nl = text.indexOf('\n', pos);
    if (nl < 0 || nl >= end) break;
    pos = nl + 1;
  }
  starts[n] = end + 1;
  return starts.subarray(0, n + 1);
}

/** Index of the line holding `offset`: the last start <= offset. */
function lineAt(starts: Uint32Array, offset: number): number {
  let lo = 0;
  let hi = starts.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export class LogIndex {
  readonly lineCount: number;
  private readonly text: string;
  private readonly starts: Uint32Array;
  private haystack: string | undefined;
  private hayStarts: Uint32Array | undefined;

  constructor(text: string) {
    this.text = text.includes('\r\n') ? text.replace(/\r\n/g, '\n') : text;
    this.starts = lineStarts(this.text);
    this.lineCount = this.text.length === 0 ? 0 : this.starts.length - 1;
  }

  /** Lines `from` (inclusive) to `to` (exclusive), clamped to the log. */
  lines(from: number, to: number): string[] {
    const a = Math.max(0, Math.min(from, this.lineCount));
    const b = Math.max(a, Math.min(to, this.lineCount));
    const out: string[] = [];
    for (let i = a; i < b; i++) out.push(this.text.slice(this.starts[i], (this.starts[i + 1] as number) - 1));
    return out;
  }

  /** Builds the search text; searching builds it too, but the worker does it right after the first rows are out. */
  prepareSearch(): void {
    if (this.haystack !== undefined) return;
    const plain = plainTextOfLines(this.text);
    let lower = plain.toLowerCase();
    // Lowercasing lengthens a few characters (U+0130); then line by line, so no line break moves between lines.
    if (lower.length !== plain.length)
      lower = plain
        .split('\n')
        .map((l) => l.toLowerCase())
        .join('\n');
    this.haystack = lower;
    this.hayStarts = plain === this.text && lower.length === plain.length ? this.starts : lineStarts(lower);
  }

  /** The first line at or after line `fromLine` that contains `query` (case-insensitive), or -1. */
  firstHit(query: string, fromLine = 0): number {
    const q = query.toLowerCase();
    if (!q || fromLine >= this.lineCount) return -1;
    this.prepareSearch();
    const hay = this.haystack as string;
    const starts = this.hayStarts as Uint32Array;
    const at = hay.indexOf(q, starts[fromLine]);
    return at < 0 ? -1 : lineAt(starts, at);
  }

  /** Every line that contains `query`, in order, each once. */
  allHits(query: string): Uint32Array {
    const q = query.toLowerCase();
    if (!q) return new Uint32Array(0);
    this.prepareSearch();
    const hay = this.haystack as string;
    const starts = this.hayStarts as Uint32Array;
    let hits = new Uint32Array(256);
    let n = 0;
    let line = 0;
    let at = hay.indexOf(q);
    while (at >= 0) {
      // Hits come in order: search for the line from the previous hit's line on.
      let lo = line;
      let hi = starts.length - 2;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if ((starts[mid] as number) <= at) lo = mid;
        else hi = mid - 1;
      }
      line = lo;
      if (n === hits.length) {
        const grown = new Uint32Array(hits.length * 2);
        grown.set(hits);
        hits = grown;
      }
      hits[n++] = line;
      if (line + 1 >= this.lineCount) break;
      at = hay.indexOf(q, starts[line + 1]);
    }
    return hits.slice(0, n);
  }
}
