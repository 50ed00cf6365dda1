/**
 * The value of a Python expression when it needs no running: literals,
 * displays of them, `range(...)` and `len(...)`, and what arithmetic,
 * comparisons and boolean operators make of those, read from the syntax
 * tree. A comprehension's `if` filter is read this way (comprehension.ts).
 *
 * Every result is the value Python gives, or undefined: for a name whose
 * value only running the module tells, for anything Python would raise on
 * (`1 < "a"`, `x // 0`), and for whatever is not listed here (floats,
 * calls other than `range` and `len`, attribute access). The index then
 * stays silent rather than guess (server/README.md, "List comprehensions").
 */
import { literalArg } from './literalArg';
import type { SyntaxNode } from './treeSitter';

export type PyValue =
  | { readonly kind: 'int'; readonly value: bigint }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'str'; readonly value: string }
  | { readonly kind: 'none' }
  | { readonly kind: 'tuple' | 'list'; readonly items: readonly PyValue[] }
  | { readonly kind: 'range'; readonly start: bigint; readonly stop: bigint; readonly step: bigint };

/** What the expression's names hold where it is evaluated. */
export interface ValueScope {
  /** The value `name` holds; undefined when only running the module tells. */
  valueOf(name: string): PyValue | undefined;
  /** How many items `name` holds when its items are not known themselves (`len(NAME)`). */
  lengthOf(name: string): number | undefined;
  /** Whether the expression's own scope binds `name` (a comprehension's variable), hiding the module's name. */
  binds(name: string): boolean;
  /** Whether `name` (`range`, `len`) is still Python's builtin there: bound by neither that scope nor the module. */
  builtin(name: string): boolean;
}

/** Integers past this many bits, and strings and sequences past this length, are not followed (`10**10**9`). */
const MAX_BITS = 4096n;
const MAX_LENGTH = 10_000;

const NONE: PyValue = Object.freeze({ kind: 'none' });
const TRUE: PyValue = Object.freeze({ kind: 'bool', value: true });
const FALSE: PyValue = Object.freeze({ kind: 'bool', value: false });
const bool = (b: boolean): PyValue => (b ? TRUE : FALSE);

function int(value: bigint): PyValue | undefined {
  const magnitude = value < 0n ? -value : value;
  return magnitude >> MAX_BITS ? undefined : { kind: 'int', value };
}

/** An int's or a bool's value as an integer (bool is a subclass of int in Python). */
function asInteger(v: PyValue): bigint | undefined {
  if (v.kind === 'int') return v.value;
  if (v.kind === 'bool') return v.value ? 1n : 0n;
  return undefined;
}

/** Named children that are code: comments are named nodes of their own. */
export function operands(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (const child of node.namedChildren) if (child && child.type !== 'comment') out.push(child);
  return out;
}

/** A Python integer literal: decimal without leading zeros, or hex, octal, binary; underscores between digits. */
const INTEGER = /^(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|[1-9](?:_?\d)*|0(?:_?0)*)$/;

/** How deep an expression is followed: `-(-(-x))` thousands deep would otherwise exhaust the stack. */
const MAX_DEPTH = 100;
let depth = 0;

export function evaluate(node: SyntaxNode, scope: ValueScope): PyValue | undefined {
  if (depth >= MAX_DEPTH) return undefined;
  depth++;
  try {
    return evaluateNode(node, scope);
  } finally {
    depth--;
  }
}

function evaluateNode(node: SyntaxNode, scope: ValueScope): PyValue | undefined {
  switch (node.type) {
    case 'integer': {
      const source = node.text;
      return INTEGER.test(source) ? int(BigInt(source.replace(/_/g, ''))) : undefined;
    }
    case 'true':
      return TRUE;
    case 'false':
      return FALSE;
    case 'none':
      return NONE;
    case 'string': {
      const source = node.text;
      // Escapes are left to Python: literalString keeps some of them as written.
      if (source.includes('\\')) return undefined;
      const lit = literalArg(source, { start: 0, end: source.length });
      return lit?.kind === 'str' ? { kind: 'str', value: lit.value } : undefined;
    }
    case 'identifier':
      return scope.valueOf(node.text);
    case 'parenthesized_expression': {
      const inner = operands(node);
      return inner.length === 1 ? evaluate(inner[0]!, scope) : undefined;
    }
    case 'tuple':
    case 'list': {
      const items: PyValue[] = [];
      for (const child of operands(node)) {
        const v = evaluate(child, scope);
        if (!v) return undefined;
        items.push(v);
      }
      return { kind: node.type, items };
    }
    case 'not_operator': {
      const arg = node.childForFieldName('argument');
      const v = arg ? evaluate(arg, scope) : undefined;
      return v && bool(!truthy(v));
    }
    case 'unary_operator':
      return unary(node, scope);
    case 'binary_operator':
      return binary(node, scope);
    case 'boolean_operator': {
      const left = node.childForFieldName('left');
      const right = node.childForFieldName('right');
      const a = left ? evaluate(left, scope) : undefined;
      if (!a || !right) return undefined;
      // `and` gives its first operand when that is false, `or` when it is true; the other one is then never evaluated.
      const isAnd = node.childForFieldName('operator')?.type === 'and';
      return truthy(a) === isAnd ? evaluate(right, scope) : a;
    }
    case 'comparison_operator':
      return comparison(node, scope);
    case 'conditional_expression': {
      const [then, condition, otherwise] = operands(node);
      const c = condition && evaluate(condition, scope);
      if (!c || !otherwise) return undefined;
      return evaluate(truthy(c) ? then! : otherwise, scope);
    }
    case 'call':
      return call(node, scope);
    default:
      return undefined;
  }
}

export function truthy(v: PyValue): boolean {
  switch (v.kind) {
    case 'int':
      return v.value !== 0n;
    case 'bool':
      return v.value;
    case 'str':
      return v.value.length > 0;
    case 'none':
      return false;
    case 'tuple':
    case 'list':
      return v.items.length > 0;
    case 'range':
      return rangeLength(v.start, v.stop, v.step) > 0n;
  }
}

export function rangeLength(start: bigint, stop: bigint, step: bigint): bigint {
  const span = step > 0n ? stop - start : start - stop;
  const by = step > 0n ? step : -step;
  return span <= 0n ? 0n : (span + by - 1n) / by;
}

/**
 * The items iterating `v` gives, when there are at most `limit` of them:
 * a tuple's or list's items, a range's integers, a string's characters.
 */
export function itemsOf(v: PyValue, limit: number): readonly PyValue[] | undefined {
  if (v.kind === 'tuple' || v.kind === 'list') return v.items.length <= limit ? v.items : undefined;
  if (v.kind === 'str') {
    const chars = [...v.value]; // by code point, as Python counts them
    return chars.length <= limit ? chars.map((c) => ({ kind: 'str', value: c })) : undefined;
  }
  if (v.kind !== 'range') return undefined;
  const n = rangeLength(v.start, v.stop, v.step);
  if (n > BigInt(limit)) return undefined;
  const out: PyValue[] = [];
  for (let k = 0n; k < n; k++) out.push({ kind: 'int', value: v.start + k * v.step });
  return out;
}

function unary(node: SyntaxNode, scope: ValueScope): PyValue | undefined {
  const arg = node.childForFieldName('argument');
  const v = arg ? evaluate(arg, scope) : undefined;
  const n = v && asInteger(v);
  if (n === undefined) return undefined;
  switch (node.childForFieldName('operator')?.type) {
    case '-':
      return int(-n);
    case '+':
      return int(n);
    case '~':
      return int(-n - 1n);
    default:
      return undefined;
  }
}

function binary(node: SyntaxNode, scope: ValueScope): PyValue | undefined {
  const left = node.childForFieldName('left');
  const right = node.childForFieldName('right');
  const op = node.childForFieldName('operator')?.type;
  const a = left ? evaluate(left, scope) : undefined;
  const b = a && right ? evaluate(right, scope) : undefined;
  if (!a || !b || !op) return undefined;
  const x = asInteger(a);
  const y = asInteger(b);
  if (x !== undefined && y !== undefined) {
    if (op === '&' || op === '|' || op === '^') {
      const r = op === '&' ? x & y : op === '|' ? x | y : x ^ y;
      // Two bools make a bool.
      return a.kind === 'bool' && b.kind === 'bool' ? bool(r !== 0n) : int(r);
    }
    return integerOp(op, x, y);
  }
  if (op === '+' && a.kind === 'str' && b.kind === 'str') return text(a.value + b.value);
  if (op === '+' && (a.kind === 'tuple' || a.kind === 'list') && a.kind === b.kind) {
    const items = [...a.items, ...b.items];
    return items.length <= MAX_LENGTH ? { kind: a.kind, items } : undefined;
  }
  if (op === '*' && (a.kind === 'str' || b.kind === 'str')) {
    const s = a.kind === 'str' ? a : b;
    const times = asInteger(a.kind === 'str' ? b : a);
    if (s.kind !== 'str' || times === undefined) return undefined;
    if (times <= 0n) return text('');
    return BigInt(s.value.length) * times <= BigInt(MAX_LENGTH) ? text(s.value.repeat(Number(times))) : undefined;
  }
  return undefined;
}

function text(value: string): PyValue | undefined {
  return value.length <= MAX_LENGTH ? { kind: 'str', value } : undefined;
}

function integerOp(op: string, x: bigint, y: bigint): PyValue | undefined {
  switch (op) {
    case '+':
      return int(x + y);
    case '-':
      return int(x - y);
    case '*':
      return int(x * y);
    case '//':
      return y === 0n ? undefined : int(floorDiv(x, y));
    case '%':
      return y === 0n ? undefined : int(x - floorDiv(x, y) * y);
    case '**':
      // A negative exponent makes a float; a result past MAX_BITS is refused before it is computed.
      if (y < 0n) return undefined;
      // -1, 0 and 1 stay small whatever the exponent: only its parity (and whether it is 0) matters.
      if (x >= -1n && x <= 1n) return int(x ** (y === 0n ? 0n : 2n - (y % 2n)));
      return bitLength(x) * y > MAX_BITS ? undefined : int(x ** y);
    case '<<':
      return y < 0n || y > MAX_BITS ? undefined : int(x << y);
    case '>>':
      return y < 0n ? undefined : int(y > MAX_BITS ? (x < 0n ? -1n : 0n) : x >> y);
    default:
      // `/` makes a float; `@` is no integer operator.
      return undefined;
  }
}

function bitLength(x: bigint): bigint {
  return BigInt((x < 0n ? -x : x).toString(2).length);
}

/** Python's `//`: rounds toward negative infinity (BigInt's `/` truncates toward zero). */
function floorDiv(x: bigint, y: bigint): bigint {
  const q = x / y;
  return q * y !== x && x < 0n !== y < 0n ? q - 1n : q;
}

function comparison(node: SyntaxNode, scope: ValueScope): PyValue | undefined {
  const terms = operands(node);
  const ops = node.childrenForFieldName('operators');
  if (terms.length !== ops.length + 1 || terms.length < 2) return undefined;
  let left = evaluate(terms[0]!, scope);
  if (!left) return undefined;
  // `a < b < c` is `a < b and b < c`, each operand evaluated once and only while the chain holds.
  for (let i = 0; i < ops.length; i++) {
    const right = evaluate(terms[i + 1]!, scope);
    const op = ops[i]?.type;
    if (!right || !op) return undefined;
    const holds = compare(op, left, right);
    if (holds === undefined) return undefined;
    if (!holds) return FALSE;
    left = right;
  }
  return TRUE;
}

function compare(op: string, a: PyValue, b: PyValue): boolean | undefined {
  switch (op) {
    case '==':
      return equal(a, b);
    case '!=': {
      const eq = equal(a, b);
      return eq === undefined ? undefined : !eq;
    }
    case '<':
    case '<=':
    case '>':
    case '>=': {
      const order = ordering(a, b);
      if (order === undefined) return undefined;
      return op === '<' ? order < 0 : op === '<=' ? order <= 0 : op === '>' ? order > 0 : order >= 0;
    }
    case 'in':
    case 'not in': {
      const found = contains(b, a);
      return found === undefined ? undefined : (op === 'in') === found;
    }
    case 'is':
    case 'is not': {
      const same = identical(a, b);
      return same === undefined ? undefined : (op === 'is') === same;
    }
    default:
      return undefined;
  }
}

function equal(a: PyValue, b: PyValue): boolean | undefined {
  const x = asInteger(a);
  const y = asInteger(b);
  if (x !== undefined || y !== undefined) return x === y;
  if (a.kind === 'str' && b.kind === 'str') return a.value === b.value;
  if (a.kind === 'none' || b.kind === 'none') return a.kind === b.kind;
  if ((a.kind === 'tuple' || a.kind === 'list') && a.kind === b.kind) {
    if (a.items.length !== b.items.length) return false;
    for (let i = 0; i < a.items.length; i++) {
      const eq = equal(a.items[i]!, b.items[i]!);
      if (eq !== true) return eq;
    }
    return true;
  }
  // Ranges compare as the sequences they make; nothing here needs that.
  if (a.kind === 'range' || b.kind === 'range') return undefined;
  return false; // a tuple and a list, a str and a sequence: never equal
}

/** -1, 0 or 1; undefined where Python raises TypeError (or for sequences, which nothing here needs ordered). */
function ordering(a: PyValue, b: PyValue): number | undefined {
  const x = asInteger(a);
  const y = asInteger(b);
  if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : 0;
  if (a.kind === 'str' && b.kind === 'str') return compareCodePoints(a.value, b.value);
  return undefined;
}

/** Python orders strings by code point; JavaScript's `<` by UTF-16 unit, which differs past U+FFFF. */
function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const ca = ia.next();
    const cb = ib.next();
    if (ca.done || cb.done) return ca.done && cb.done ? 0 : ca.done ? -1 : 1;
    const x = ca.value.codePointAt(0)!;
    const y = cb.value.codePointAt(0)!;
    if (x !== y) return x < y ? -1 : 1;
  }
}

/** `needle in haystack`. */
function contains(haystack: PyValue, needle: PyValue): boolean | undefined {
  if (haystack.kind === 'str') return needle.kind === 'str' ? haystack.value.includes(needle.value) : undefined;
  if (haystack.kind === 'tuple' || haystack.kind === 'list') {
    let unsure = false;
    for (const item of haystack.items) {
      const eq = equal(item, needle);
      if (eq === true) return true;
      if (eq === undefined) unsure = true;
    }
    return unsure ? undefined : false;
  }
  if (haystack.kind === 'range') {
    const n = asInteger(needle);
    // Anything else is compared item by item, and no integer equals it.
    if (n === undefined) return false;
    const { start, stop, step } = haystack;
    const inside = step > 0n ? n >= start && n < stop : n <= start && n > stop;
    return inside && (n - start) % step === 0n;
  }
  return undefined;
}

/** `a is b`, where Python defines it: None and the two bools are single objects. */
function identical(a: PyValue, b: PyValue): boolean | undefined {
  if (a.kind === 'none' || b.kind === 'none') return a.kind === b.kind;
  if (a.kind === 'bool' && b.kind === 'bool') return a.value === b.value;
  if ((a.kind === 'bool' && b.kind === 'int') || (a.kind === 'int' && b.kind === 'bool')) return false;
  return undefined; // small ints and equal strings may or may not be one object
}

function call(node: SyntaxNode, scope: ValueScope): PyValue | undefined {
  const fn = node.childForFieldName('function');
  const args = node.childForFieldName('arguments');
  if (fn?.type !== 'identifier' || args?.type !== 'argument_list' || !scope.builtin(fn.text)) return undefined;
  const given = operands(args);
  // Keywords, `*args` and `**kwargs` are left to Python.
  if (given.some((a) => a.type === 'keyword_argument' || a.type === 'list_splat' || a.type === 'dictionary_splat'))
    return undefined;
  if (fn.text === 'len' && given.length === 1) return lengthOf(given[0]!, scope);
  if (fn.text !== 'range' || given.length === 0 || given.length > 3) return undefined;
  const bounds: bigint[] = [];
  for (const a of given) {
    const v = evaluate(a, scope);
    const n = v && asInteger(v);
    if (n === undefined) return undefined;
    bounds.push(n);
  }
  const [start, stop, step] = bounds.length === 1 ? [0n, bounds[0]!, 1n] : [bounds[0]!, bounds[1]!, bounds[2] ?? 1n];
  return step === 0n ? undefined : { kind: 'range', start, stop, step }; // range(a, b, 0) raises
}

/** `len(v)`: a string's code points, a sequence's items; undefined for what has no length. */
export function sizeOf(v: PyValue): bigint | undefined {
  if (v.kind === 'str') return BigInt([...v.value].length);
  if (v.kind === 'tuple' || v.kind === 'list') return BigInt(v.items.length);
  if (v.kind === 'range') return rangeLength(v.start, v.stop, v.step);
  return undefined;
}

function lengthOf(arg: SyntaxNode, scope: ValueScope): PyValue | undefined {
  const v = evaluate(arg, scope);
  const size = v && sizeOf(v);
  if (size !== undefined) return int(size);
  if (v || arg.type !== 'identifier' || scope.binds(arg.text)) return undefined;
  const n = scope.lengthOf(arg.text);
  return n === undefined ? undefined : int(BigInt(n));
}
