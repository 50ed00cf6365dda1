/**
 * Reads a call argument that is a plain literal (`"x"`, `3`, `2.5`, `True`,
 * `None`, `-1`): the only argument values whose type is known statically.
 */
import type { LiteralArg } from './facts';
import type { Span } from './pyScan';
import { intern } from './intern';
import { literalString } from './syntax';

/**
 * Literal arguments are the same few values in file after file (`1`,
 * `True`, `"maths"`): short ones are shared, frozen, like interned strings
 * (a cache that starts again when full; bench/index/README.md).
 */
const SHARED_LIMIT = 20_000;
const SHARED_MAX_LENGTH = 64;
const fresh = () => ({ str: new Map(), int: new Map(), float: new Map(), bool: new Map(), none: new Map() });
let shared: Record<LiteralArg['kind'], Map<string, LiteralArg>> = fresh();
let sharedCount = 0;

/** `owned`: `value` refers to no other string (literalString's result). */
function literal(kind: LiteralArg['kind'], value: string, owned = false): LiteralArg {
  if (value.length > SHARED_MAX_LENGTH) return { kind, value };
  let found = shared[kind].get(value);
  if (found === undefined) {
    if (sharedCount >= SHARED_LIMIT) {
      shared = fresh();
      sharedCount = 0;
    }
    const kept = intern(value, owned);
    found = Object.freeze({ kind, value: kept });
    shared[kind].set(kept, found);
    sharedCount++;
  }
  return found;
}

const INT = /^[-+]?(?:0|[1-9](?:_?\d)*)$/;
const FLOAT = /^[-+]?(?:\d(?:_?\d)*)?(?:\.\d(?:_?\d)*|\d\.)(?:[eE][-+]?\d+)?$|^[-+]?\d(?:_?\d)*[eE][-+]?\d+$/;

export function literalArg(text: string, span: Span): LiteralArg | undefined {
  const source = text.slice(span.start, span.end);
  const c = source.charCodeAt(0);
  // A quote or a string prefix letter: only then is it worth reading as a string.
  if (c === 34 || c === 39 || /^[rRbBuU]{1,2}["']/.test(source)) {
    if (/^[bB]|^[rR][bB]/.test(source)) return undefined; // bytes are not str
    const value = literalString(source);
    return value === undefined ? undefined : literal('str', value, true);
  }
  if (source === 'True' || source === 'False') return literal('bool', source);
  if (source === 'None') return literal('none', source);
  if (INT.test(source)) return literal('int', source.replace(/_/g, ''));
  if (FLOAT.test(source)) return literal('float', source.replace(/_/g, ''));
  return undefined;
}
