/**
 * Keys to sets of strings, for the workspace's reverse maps (which files
 * define a template, which files depend on a path). Most keys have one
 * value (a template defined in one file), and a one-entry `Set` costs about
 * 250 bytes with its hash table: two per environment file were a tenth of
 * the index's heap (bench/index/README.md). A lone value is kept as the
 * string itself; a second one makes a `Set`, in insertion order as before.
 */
export class StringMultimap {
  private readonly map = new Map<string, string | Set<string>>();

  add(key: string, value: string): void {
    const held = this.map.get(key);
    if (held === undefined) this.map.set(key, value);
    else if (typeof held === 'string') {
      if (held !== value) this.map.set(key, new Set([held, value]));
    } else held.add(value);
  }

  delete(key: string, value: string): void {
    const held = this.map.get(key);
    if (held === undefined) return;
    if (typeof held === 'string') {
      if (held === value) this.map.delete(key);
    } else if (held.delete(value) && held.size === 0) this.map.delete(key);
  }

  /** The values of `key`, in the order they were added. */
  get(key: string): Iterable<string> {
    const held = this.map.get(key);
    return held === undefined ? [] : typeof held === 'string' ? [held] : held;
  }
}
