/**
 * The line that holds a character offset, given where each line starts:
 * one binary search for both log views (the trace's log and the whole log's
 * worker). `from` lets a caller walking hits in order search only forward,
 * so a whole search stays linear.
 */
export function lineHolding(starts: ArrayLike<number>, lines: number, offset: number, from = 0): number {
  let lo = from;
  let hi = lines - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
