/**
 * Strings the index keeps for as long as a file is indexed: names,
 * callees, keys, modules, paths and URIs (bench/index/README.md measures
 * what they cost).
 *
 * V8 represents a substring of 13 or more characters as a view into the
 * whole string it was cut from, and a string built with `+` or a template
 * as a tree of its pieces: one kept name or URI would keep the file's text,
 * or a chain of small strings, alive. And the same identifiers (`score`,
 * `answer`, `str`, a shared module's name) recur in file after file.
 */

/** A copy of `s` that refers to no other string (flat, not a view or a concatenation). */
export function ownString(s: string): string {
  // utf16le round-trips every code unit, lone surrogates included.
  return s.length < 13 ? s : Buffer.from(s, 'utf16le').toString('utf16le');
}

/**
 * The pool is a cache, not a registry: when it is full it starts again, and
 * strings handed out before stay valid (they are only no longer shared).
 */
const POOL_LIMIT = 50_000;
let pool = new Map<string, string>();

/** One shared, flat copy of each short string the index keeps (identifiers, keys, dotted names). */
export function intern(s: string): string {
  const known = pool.get(s);
  if (known !== undefined) return known;
  if (pool.size >= POOL_LIMIT) pool = new Map();
  const own = ownString(s);
  pool.set(own, own);
  return own;
}
