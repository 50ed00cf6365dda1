/**
 * An array that the index keeps, at its exact length. V8 gives an array
 * filled by `push` room for 17 elements (152 bytes) at its first push, and
 * never gives the room back: most arrays in a file's facts hold one to three
 * elements, and that slack was about a sixth of the index's heap
 * (bench/index/README.md). Call it once an array is complete.
 *
 * Empty ones are all the same array (a file's facts had about ten, 32
 * bytes each): nothing may add to an array once it is fitted, which the
 * unit tests check after exercising the index (test/unit/server/sharedValues.test.ts).
 *
 * Not frozen, and neither is any other array the index shares: V8 (Node
 * 20) reads a frozen array's elements through its generic path, and a
 * `for...of` over one runs about six times slower and allocates a result
 * object per element. Linking iterates these arrays for every file; the
 * frozen ones cost it a fifth of its time (bench/index/README.md).
 */
const EMPTY: readonly never[] = [];

export function fitted<T>(items: T[]): T[] {
  return items.length === 0 ? (EMPTY as unknown as T[]) : items.slice();
}
