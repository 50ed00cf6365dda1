/** Offset <-> position over a JS string (UTF-16 code units, like LSP). */
import type { Position } from './facts';

/**
 * Positions the index keeps, shared by every file: the facts hold about 50
 * positions per environment file, and the same few thousand `{line,
 * character}` pairs (small line numbers, short columns) recur from file to
 * file. One frozen object per pair instead of one per use takes most of
 * them off the heap and out of the collector's copying (bench/index/README.md).
 * A cache, not a registry: when full it starts again; positions handed out
 * before stay valid.
 */
const SHARED_LIMIT = 100_000;
/** Columns up to this fit the key; wider ones (minified lines) get a position of their own. */
const COLUMN_SPAN = 0x10000;
let shared = new Map<number, Position>();

export function positionOf(line: number, character: number): Position {
  if (character >= COLUMN_SPAN) return { line, character };
  const key = line * COLUMN_SPAN + character;
  let p = shared.get(key);
  if (p === undefined) {
    if (shared.size >= SHARED_LIMIT) shared = new Map();
    p = Object.freeze({ line, character });
    shared.set(key, p);
  }
  return p;
}

export class LineMap {
  private readonly starts: number[] = [0];
  /** The line of the last answer: extraction asks in nearly ascending order, mostly on that line or the next. */
  private last = 0;
  constructor(text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  positionAt(offset: number): Position {
    const starts = this.starts;
    const near = this.last;
    if (starts[near]! <= offset) {
      if (near + 1 >= starts.length || offset < starts[near + 1]!) return positionOf(near, offset - starts[near]!);
      if (near + 2 >= starts.length || offset < starts[near + 2]!) {
        this.last = near + 1;
        return positionOf(near + 1, offset - starts[near + 1]!);
      }
    }
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    this.last = lo;
    return positionOf(lo, offset - starts[lo]!);
  }
}
