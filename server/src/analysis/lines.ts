/** Offset <-> position over a JS string (UTF-16 code units, like LSP). */
import type { Position } from './facts';

export class LineMap {
  private readonly starts: number[] = [0];
  /** The line of the last answer: extraction asks in nearly ascending order, mostly on that line or the next. */
  private last = 0;
  /**
   * Answers given, by offset: ranges of one file often start or end at the same
   * place (a task, its call and its callee), and the facts keep every position.
   * Positions are never changed once made, so one object can serve them all.
   */
  private readonly given = new Map<number, Position>();
  constructor(text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }
  positionAt(offset: number): Position {
    let p = this.given.get(offset);
    if (p === undefined) {
      p = this.compute(offset);
      this.given.set(offset, p);
    }
    return p;
  }

  private compute(offset: number): Position {
    const starts = this.starts;
    const near = this.last;
    if (starts[near]! <= offset) {
      if (near + 1 >= starts.length || offset < starts[near + 1]!)
        return { line: near, character: offset - starts[near]! };
      if (near + 2 >= starts.length || offset < starts[near + 2]!) {
        this.last = near + 1;
        return { line: near + 1, character: offset - starts[near + 1]! };
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
    return { line: lo, character: offset - starts[lo]! };
  }
}
