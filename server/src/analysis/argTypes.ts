/**
 * Whether a literal argument survives the SDK's argument conversion for its
 * parameter's annotation. The SDK validates each argument against the
 * annotation in pydantic's lax mode and, when that fails, passes the value on
 * unconverted: `n="three"` for `n: int` reaches the template as a str and
 * fails later, far from the call. Only annotations whose rules are certain
 * are judged (int, float, str, bool, Literal, date, datetime and time
 * (dateArgs.ts), Optional/Union of those);
 * anything else is accepted. See docs/hud-protocol.md (task arguments).
 */
import { BoundedCache } from './boundedCache';
import { dateKindOf, judgeDateLike } from './dateArgs';
import type { LiteralArg } from './facts';
import { splitTopLevel } from './pyScan';
import { literalString } from './syntax';

const BOOL_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no', '1', 'on', 't', 'true', 'y', 'yes']);
const NUMERIC = /^\s*[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$/;
const INTEGRAL = /^\s*[-+]?\d[\d_]*(?:\.0*)?\s*$/;

export interface TypeMismatch {
  /** `an int`, `a str`, `one of "a", "b"`. */
  expected: string;
  /** Source texts that would fit, for the quick fix (may be empty). */
  choices: string[];
}

/** The mismatch, or undefined when the value converts (or the annotation is not judged). */
export function literalMismatch(annotation: string, value: LiteralArg): TypeMismatch | undefined {
  const members = membersOf(annotation);
  if (members.length === 1) {
    // The common case (`n: int`): one verdict, no intermediate arrays.
    const v = judge(members[0]!, value);
    return typeof v === 'object' ? v : undefined;
  }
  const verdicts = members.map((m) => judge(m, value));
  if (verdicts.some((v) => v === 'ok' || v === 'unknown')) return undefined;
  const fails = verdicts.filter((v): v is TypeMismatch => typeof v === 'object');
  return {
    expected: fails.map((f) => f.expected).join(' or '),
    choices: fails.flatMap((f) => f.choices),
  };
}

/**
 * An annotation's union members, read once per annotation text: every task
 * of a workspace checks its literal arguments against the few annotations
 * its templates use. A cache, not a registry: when full it starts again.
 */
const membersCache = new BoundedCache<string, readonly string[]>(10_000);

function membersOf(annotation: string): readonly string[] {
  return (
    membersCache.get(annotation) ?? membersCache.add(annotation, unionMembers(stripTyping(annotation.trim())) ?? [])
  );
}

function stripTyping(t: string): string {
  return t.replace(/\b(?:typing|typing_extensions|t)\s*\.\s*/g, '');
}

/** `Optional[X]`, `Union[X, Y]`, `X | Y` flattened; undefined when the text does not parse. */
function unionMembers(t: string): string[] | undefined {
  const optional = /^Optional\s*\[(.*)\]$/s.exec(t);
  if (optional) return [...(unionMembers(optional[1]!.trim()) ?? [optional[1]!.trim()]), 'None'];
  const union = /^Union\s*\[(.*)\]$/s.exec(t);
  if (union) return topLevel(union[1]!, ',').flatMap((m) => unionMembers(m) ?? [m]);
  const bars = topLevel(t, '|');
  return bars.length > 1 ? bars.flatMap((m) => unionMembers(m) ?? [m]) : [t];
}

/** Split on a separator outside brackets and strings. */
function topLevel(t: string, sep: ',' | '|'): string[] {
  if (sep === ',') return splitTopLevel(t, 0, t.length).map((s) => t.slice(s.start, s.end).trim());
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t[i];
    if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    else if (c === '"' || c === "'") {
      const close = t.indexOf(c, i + 1);
      if (close < 0) break;
      i = close;
    } else if (c === sep && depth === 0) {
      out.push(t.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(t.slice(start).trim());
  return out;
}

function judge(type: string, v: LiteralArg): 'ok' | 'unknown' | TypeMismatch {
  const literal = type.startsWith('Literal') ? /^Literal\s*\[(.*)\]$/s.exec(type) : null;
  if (literal) return judgeLiteral(topLevel(literal[1]!, ','), v);
  switch (type) {
    case 'None':
      return v.kind === 'none' ? 'ok' : { expected: 'None', choices: [] };
    case 'int':
      if (v.kind === 'int' || v.kind === 'bool') return 'ok';
      if (v.kind === 'float' || v.kind === 'str')
        return INTEGRAL.test(v.value) ? 'ok' : { expected: 'an int', choices: [] };
      return { expected: 'an int', choices: [] };
    case 'float':
      if (v.kind === 'int' || v.kind === 'float' || v.kind === 'bool') return 'ok';
      if (v.kind === 'str')
        return NUMERIC.test(v.value) || /^\s*[-+]?(?:inf|infinity|nan)\s*$/i.test(v.value)
          ? 'ok'
          : { expected: 'a float', choices: [] };
      return { expected: 'a float', choices: [] };
    case 'str':
      if (v.kind === 'str') return 'ok';
      return { expected: 'a str', choices: v.kind === 'none' ? [] : [JSON.stringify(v.value)] };
    case 'bool':
      if (v.kind === 'bool') return 'ok';
      if (v.kind === 'int' || v.kind === 'float')
        return Number(v.value) === 0 || Number(v.value) === 1
          ? 'ok'
          : { expected: 'a bool', choices: ['True', 'False'] };
      if (v.kind === 'str')
        return BOOL_WORDS.has(v.value.trim().toLowerCase()) ? 'ok' : { expected: 'a bool', choices: ['True', 'False'] };
      return { expected: 'a bool', choices: ['True', 'False'] };
    default: {
      const dateKind = dateKindOf(type);
      return dateKind === undefined ? 'unknown' : judgeDateLike(dateKind, v);
    }
  }
}

function judgeLiteral(items: string[], v: LiteralArg): 'ok' | 'unknown' | TypeMismatch {
  const allowed: { text: string; value: unknown }[] = [];
  for (const text of items) {
    const s = literalString(text);
    if (s !== undefined) allowed.push({ text, value: s });
    else if (text === 'True' || text === 'False') allowed.push({ text, value: text === 'True' });
    else if (text === 'None') allowed.push({ text, value: null });
    else if (/^[-+]?\d+(?:\.\d+)?$/.test(text)) allowed.push({ text, value: Number(text) });
    else return 'unknown'; // an enum member or a name: not judged
  }
  const given: unknown[] = [pythonValue(v)];
  // A string that is JSON of an allowed value converts too (`"1"` for Literal[1]).
  if (v.kind === 'str') {
    try {
      given.push(JSON.parse(v.value));
    } catch {
      // not JSON: only the string itself can match
    }
  }
  if (allowed.some((a) => given.some((g) => g === a.value))) return 'ok';
  return { expected: `one of ${items.join(', ')}`, choices: allowed.map((a) => a.text) };
}

function pythonValue(v: LiteralArg): unknown {
  switch (v.kind) {
    case 'str':
      return v.value;
    case 'int':
    case 'float':
      return Number(v.value);
    case 'bool':
      return v.value === 'True';
    case 'none':
      return null;
  }
}
