/**
 * A whole log (a side file beside the trace, docs/trace-format.md) indexed
 * once for the viewer: where every line starts in the text, a lowercased copy
 * without escape sequences that `indexOf` searches, and per block of that
 * copy a bitset of the trigrams in it, so a search skips the blocks that
 * cannot hold the query (a rare string in a million lines is found without
 * scanning them). Pure (no DOM, no worker API) so the worker runs it and
 * unit tests can too.
 */
import { plainTextOfLines } from '../ansi';
import { lineHolding } from '../lineHolding';

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

/** Characters per trigram block; a match may run into the next block, so a candidate checks both. */
const BLOCK_CHARS = 16 * 1024;
const BLOCK_BITS_LOG2 = 13;
const BLOCK_WORDS = (1 << BLOCK_BITS_LOG2) / 32;

function trigramHash(a: number, b: number, c: number): number {
  return (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ Math.imul(c, 0xc2b2ae3d)) >>> (32 - BLOCK_BITS_LOG2);
}

/** One bitset of trigram hashes per {@link BLOCK_CHARS} of `hay` (by where each trigram starts). */
function trigramBlocks(hay: string): Uint32Array {
  const blocks = Math.ceil(hay.length / BLOCK_CHARS);
  const bits = new Uint32Array(blocks * BLOCK_WORDS);
  let a = hay.charCodeAt(0);
  let b = hay.charCodeAt(1);
  for (let p = 0; p + 2 < hay.length; p++) {
    const c = hay.charCodeAt(p + 2);
    const h = trigramHash(a, b, c);
    const i = ((p / BLOCK_CHARS) | 0) * BLOCK_WORDS + (h >>> 5);
    bits[i] = (bits[i] as number) | (1 << (h & 31));
    a = b;
    b = c;
  }
  return bits;
}

/** Index of the line holding `offset`: the last start <= offset. */
export class LogIndex {
  readonly lineCount: number;
  private readonly text: string;
  private readonly starts: Uint32Array;
  private haystack: string | undefined;
  private hayStarts: Uint32Array | undefined;
  private blocks: Uint32Array | undefined;

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
    this.blocks = trigramBlocks(lower);
  }

  /**
   * Where `indexOf` should look for `q` from `offset` on: the start of the
   * first block (at or after `offset`'s) that, with the block after it, holds
   * every trigram of `q`; -1 when none does. Queries under three characters
   * skip nothing.
   */
  private candidate(q: string, offset: number): number {
    const bits = this.blocks as Uint32Array;
    const count = bits.length / BLOCK_WORDS;
    if (q.length < 3) return offset;
    const hashes: number[] = [];
    for (let i = 0; i + 2 < q.length; i++)
      hashes.push(trigramHash(q.charCodeAt(i), q.charCodeAt(i + 1), q.charCodeAt(i + 2)));
    for (let k = (offset / BLOCK_CHARS) | 0; k < count; k++) {
      let all = true;
      for (const h of hashes) {
        const word = h >>> 5;
        const bit = 1 << (h & 31);
        const here = (bits[k * BLOCK_WORDS + word] as number) & bit;
        if (here === 0 && (k + 1 >= count || ((bits[(k + 1) * BLOCK_WORDS + word] as number) & bit) === 0)) {
          all = false;
          break;
        }
      }
      if (all) return Math.max(offset, k * BLOCK_CHARS);
    }
    return -1;
  }

  /** The first offset at or after `from` where `q` is in the search text, or -1. */
  private find(q: string, from: number): number {
    const at = this.candidate(q, from);
    return at < 0 ? -1 : (this.haystack as string).indexOf(q, at);
  }

  /** The first line at or after line `fromLine` that contains `query` (case-insensitive), or -1. */
  firstHit(query: string, fromLine = 0): number {
    const q = query.toLowerCase();
    if (!q || fromLine >= this.lineCount) return -1;
    this.prepareSearch();
    const starts = this.hayStarts as Uint32Array;
    const at = this.find(q, starts[fromLine] as number);
    return at < 0 ? -1 : lineHolding(starts, this.lineCount, at);
  }

  /** Every line that contains `query`, in order, each once. */
  allHits(query: string): Uint32Array {
    const q = query.toLowerCase();
    if (!q) return new Uint32Array(0);
    this.prepareSearch();
    const starts = this.hayStarts as Uint32Array;
    let hits = new Uint32Array(256);
    let n = 0;
    let line = 0;
    let at = this.find(q, 0);
    while (at >= 0) {
      // Hits come in order: search for the line from the previous hit's line on.
      line = lineHolding(starts, this.lineCount, at, line);
      if (n === hits.length) {
        const grown = new Uint32Array(hits.length * 2);
        grown.set(hits);
        hits = grown;
      }
      hits[n++] = line;
      if (line + 1 >= this.lineCount) break;
      at = this.find(q, starts[line + 1] as number);
    }
    return hits.slice(0, n);
  }
}
