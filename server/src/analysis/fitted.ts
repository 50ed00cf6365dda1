/**
 * An array that the index keeps, at its exact length. V8 gives an array
 * filled by `push` room for 17 elements (152 bytes) at its first push, and
 * never gives the room back: most arrays in a file's facts hold one to three
 * elements, and that slack was about a sixth of the index's heap
 * (bench/index/README.md). Call it once an array is complete.
 *
 * Empty ones are all the same frozen array (a file's facts had about ten,
 * 32 bytes each): nothing adds to an array once it is fitted, and a frozen
 * one would say so by throwing.
 */
const EMPTY: readonly never[] = Object.freeze([]);

export function fitted<T>(items: T[]): T[] {
  return items.length === 0 ? (EMPTY as unknown as T[]) : items.slice();
}
