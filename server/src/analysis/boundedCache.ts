/**
 * A map that starts again, empty, when it is full: the values the index
 * shares between files (intern.ts, lines.ts, templateBody.ts, argTypes.ts)
 * are caches, not registries. A value handed out before a reset stays
 * valid; it is only no longer shared with what comes after.
 */
export class BoundedCache<K, V> {
  private entries = new Map<K, V>();

  constructor(private readonly limit: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Keeps `value` under `key` and returns it. */
  add(key: K, value: V): V {
    if (this.entries.size >= this.limit) this.entries = new Map();
    this.entries.set(key, value);
    return value;
  }
}
