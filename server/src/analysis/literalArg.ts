/**
 * Reads a call argument that is a plain literal (`"x"`, `3`, `2.5`, `True`,
 * `None`, `-1`): the only argument values whose type is known statically.
 */
import type { LiteralArg } from './facts';
import { stringPrefixLength, type Span } from './pyScan';
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

const withoutUnderscores = (digits: string): string => (digits.includes('_') ? digits.replace(/_/g, '') : digits);

export function literalArg(text: string, span: Span): LiteralArg | undefined {
  const prefix = stringPrefixLength(text, span.start);
  if (prefix >= 0) {
    // Bytes are not str, and an f-string is not a literal here.
    for (let i = span.start; i < span.start + prefix; i++) {
      const letter = text.charCodeAt(i) | 0x20;
      if (letter === 0x62 /* b */ || letter === 0x66 /* f */) return undefined;
    }
    const value = literalString(text.slice(span.start, span.end));
    return value === undefined ? undefined : literal('str', value, true);
  }
  const c = text.charCodeAt(span.start);
  // Only a digit, a sign, a dot or a capital can start the other literals.
  if (!((c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 84 || c === 70 || c === 78)) return undefined;
  const source = text.slice(span.start, span.end);
  if (source === 'True' || source === 'False') return literal('bool', source);
  if (source === 'None') return literal('none', source);
  if (INT.test(source)) return literal('int', withoutUnderscores(source));
  if (FLOAT.test(source)) return literal('float', withoutUnderscores(source));
  return undefined;
}
