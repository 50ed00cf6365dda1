/**
 * Strings the index keeps for as long as a file is indexed: names,
 * callees, keys, modules, parameter texts (bench/index/README.md measures
 * what they cost).
 *
 * V8 represents a substring of 13 or more characters as a view into the
 * whole string it was cut from, and a string built with `+` or a template
 * as a tree of its pieces: one kept name would keep the file's text alive
 * (an import's module name did). And the same identifiers (`score`,
 * `answer`, `str`, a shared module's name) recur in file after file.
 */
import { BoundedCache } from './boundedCache';

/**
 * A copy of `s` that refers to no other string. V8 copies short substrings
 * anyway; for longer ones, the concatenation is flattened into a new string
 * and the slice is a view into that copy alone (measured: 4x cheaper than a
 * copy through a Buffer, which showed in the profile).
 */
export function ownString(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

const pool = new BoundedCache<string, string>(50_000);

/**
 * One shared, flat copy of each short string the index keeps (identifiers, keys, dotted names).
 * `owned`: `s` refers to no other string already (ownString's result), so it is kept as it is.
 */
export function intern(s: string, owned = false): string {
  const known = pool.get(s);
  if (known !== undefined) return known;
  const own = owned ? s : ownString(s);
  return pool.add(own, own);
}

const paths = new BoundedCache<string, readonly string[]>(20_000);

/**
 * One shared array per dotted name as written (`solve`,
 * `envs.judge.verify`): a call's callee, kept by every call of the same
 * name in any file. Nothing changes a callee once read, which its type
 * says; it is not frozen (fitted.ts says why).
 */
export function internDotted(dotted: string): readonly string[] {
  const known = paths.get(dotted);
  if (known !== undefined) return known;
  const own = dotted.indexOf('.') < 0 ? [intern(dotted)] : dotted.split('.').map((s) => intern(s.trim()));
  return paths.add(intern(dotted), own);
}
