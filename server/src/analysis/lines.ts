/** Offset <-> position over a JS string (UTF-16 code units, like LSP). */
import { BoundedCache } from './boundedCache';
import type { Position, Range } from './facts';

/**
 * Positions the index keeps, shared by every file: the facts hold about 50
 * positions per environment file, and the same few thousand `{line,
 * character}` pairs (small line numbers, short columns) recur from file to
 * file. One frozen object per pair instead of one per use takes most of
 * them off the heap and out of the collector's copying (bench/index/README.md).
 */
const positions = new BoundedCache<number, Position>(100_000);
/** Columns up to this fit the key; wider ones (minified lines) get a position of their own. */
const COLUMN_SPAN = 0x10000;

export function positionOf(line: number, character: number): Position {
  if (character >= COLUMN_SPAN) return { line, character };
  const key = line * COLUMN_SPAN + character;
  return positions.get(key) ?? positions.add(key, Object.freeze({ line, character }));
}

/**
 * Ranges the index keeps, shared the same way: an environment file's facts
 * held about 31 ranges, and at 11,000 files their 347,000 `{start, end}`
 * objects were 13 MB of the 83 MB the index kept, and ranges recur between
 * files as their positions do (the same imports, decorators and task lines
 * in the same places). Frozen, because one object stands for every use.
 */
const ranges = new BoundedCache<number, Range>(100_000);

export function sharedRange(start: Position, end: Position): Range {
  const lines = end.line - start.line;
  // The key packs the four numbers into a double's 53 exact bits; anything wider gets a range of its own.
  if (lines < 0 || lines >= 1024 || start.line >= 0x80000 || start.character >= 4096 || end.character >= 4096)
    return { start, end };
  const key = ((start.line * 1024 + lines) * 4096 + start.character) * 4096 + end.character;
  return ranges.get(key) ?? ranges.add(key, Object.freeze({ start, end }));
}

/** Whether two ranges cover the same text (ranges are shared, but not all of them: compared by value). */
export function sameRange(a: Range, b: Range): boolean {
  return (
    a.start.line === b.start.line &&
    a.start.character === b.start.character &&
    a.end.line === b.end.line &&
    a.end.character === b.end.character
  );
}

export class LineMap {
  private readonly starts: number[] = [0];
  /** The line of the last answer: extraction asks in nearly ascending order, mostly on that line or the next. */
  private last = 0;
  constructor(text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  /** The range between two offsets, shared (see sharedRange). */
  rangeAt(start: number, end: number): Range {
    return sharedRange(this.positionAt(start), this.positionAt(end));
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
