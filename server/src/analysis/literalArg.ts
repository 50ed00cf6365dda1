/**
 * Reads a call argument that is a plain literal (`"x"`, `3`, `2.5`, `True`,
 * `None`, `-1`): the only argument values whose type is known statically.
 */
import type { LiteralArg } from './facts';
import type { Span } from './pyScan';
import { literalString } from './syntax';

const INT = /^[-+]?(?:0|[1-9](?:_?\d)*)$/;
const FLOAT = /^[-+]?(?:\d(?:_?\d)*)?(?:\.\d(?:_?\d)*|\d\.)(?:[eE][-+]?\d+)?$|^[-+]?\d(?:_?\d)*[eE][-+]?\d+$/;

export function literalArg(text: string, span: Span): LiteralArg | undefined {
  const source = text.slice(span.start, span.end);
  const c = source.charCodeAt(0);
  // A quote or a string prefix letter: only then is it worth reading as a string.
  if (c === 34 || c === 39 || /^[rRbBuU]{1,2}["']/.test(source)) {
    if (/^[bB]|^[rR][bB]/.test(source)) return undefined; // bytes are not str
    const value = literalString(source);
    return value === undefined ? undefined : { kind: 'str', value };
  }
  if (source === 'True' || source === 'False') return { kind: 'bool', value: source };
  if (source === 'None') return { kind: 'none', value: source };
  if (INT.test(source)) return { kind: 'int', value: source.replace(/_/g, '') };
  if (FLOAT.test(source)) return { kind: 'float', value: source.replace(/_/g, '') };
  return undefined;
}
