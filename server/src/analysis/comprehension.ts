/**
 * List comprehensions at module level (`tasks = [solve(word=w) for w in
 * ("a", "b")]`, the SDK's own quickstart): how many elements one makes, when
 * that is known without running the module. The text says where the
 * element is and that there is a `for` at all; the count comes from running
 * the comprehension on the syntax tree, clause by clause, over the values
 * its loops take (a display, a `range(...)` of known integers, a string, a
 * module-level name the caller knows: knownValues.ts) and through its `if`
 * filters (staticValue.ts). Anything else is left to discovery
 * (server/README.md). `iterableLength` counts a module-level `for` loop's
 * passes the same way.
 */
import { isNameCode, scanTo, skipSpaceAndComments, trimEnd, type Span } from './pyScan';
import { evaluate, itemsOf, operands, sizeOf, truthy, type PyValue, type ValueScope } from './staticValue';
import type { SyntaxNode } from './treeSitter';

/** More elements than this are not listed: a `range(10**6)`-sized suite would swamp the index. */
export const MAX_COMPREHENSION_ELEMENTS = 2000;
/** How many combinations of the loops' values a count visits at most before giving up. */
const MAX_STEPS = 20_000;

/** What the module knows of names bound at its top level, as of the statement being read. */
export interface KnownNames {
  /** How many items the name's value has (a display, a counted comprehension, a literal range). */
  lengthOf(name: string): number | undefined;
  /** The integer the name is bound to (`COUNT = 10`). */
  intOf(name: string): number | undefined;
  /** The value of a name bound to a display or a range, when its items are literals. */
  valuesOf?(name: string): PyValue | undefined;
  /** Whether `name` (`range`, `len`) is still Python's builtin: the module binds no other value to it. */
  builtin(name: string): boolean;
}

/** The node of the module's syntax tree that spans exactly [start, end), when there is one without errors. */
export type NodeAt = (start: number, end: number) => SyntaxNode | undefined;

export interface Comprehension {
  /** The expression each element is made from. */
  element: Span;
  /** How many elements the list has; undefined when only running the module can tell. */
  count: number | undefined;
}

/**
 * The comprehension written between the brackets at `open` and `close`
 * (`[... for ... in ...]`), or undefined when that is a plain list.
 */
export function readComprehension(
  text: string,
  open: number,
  close: number,
  known: KnownNames | undefined,
  nodeAt: NodeAt,
): Comprehension | undefined {
  const first = nextKeyword(text, open + 1, close);
  // Before its `for`, a comprehension's element may hold no keyword of these at depth 0 but a conditional's `if`.
  let forAt = first;
  if (first?.word === 'if') {
    forAt = nextKeyword(text, first.at + 2, close);
    while (forAt && forAt.word !== 'for') forAt = nextKeyword(text, forAt.at + forAt.word.length, close);
  }
  if (!forAt || forAt.word !== 'for') return undefined;
  // A comment after the element (`solve(level=n)  # one per level`) is not part of it.
  const element = trimmed(text, open + 1, scanTo(text, open + 1, forAt.at, '#'));
  const uncounted = { element, count: undefined };
  // `a if c else b for ...`: elements that may not be tasks.
  if (first !== forAt || element.end <= element.start) return uncounted;
  const node = nodeAt(open, close + 1);
  return { element, count: node && countElements(node, known) };
}

/** Whether `item`, the first comma-separated piece of a list display, holds a `for` or an `if` at depth 0. */
export function mayBeComprehension(text: string, item: Span): boolean {
  return nextKeyword(text, item.start, item.end) !== undefined;
}

/**
 * How many passes a module-level `for` loop over `node` makes (or how many
 * items a `range(...)` bound to a name holds), with the module's names as
 * `known` knows them.
 */
export function iterableLength(node: SyntaxNode | undefined, known: KnownNames | undefined): number | undefined {
  return node && iteration(node, moduleScope(known))?.length;
}

/** The value of `node` evaluated where the module's names hold what `known` knows (`COUNT // 2`, `len(LEVELS)`). */
export function moduleValue(node: SyntaxNode, known: KnownNames | undefined): PyValue | undefined {
  return evaluate(node, moduleScope(known));
}

/** Where the first clause's iterable, and a module-level loop's, is evaluated: the module's names, each asked once. */
function moduleScope(known: KnownNames | undefined): ValueScope {
  const asked = new Map<string, PyValue | undefined>();
  return {
    valueOf: (name) => {
      if (asked.has(name)) return asked.get(name);
      const n = known?.intOf(name);
      const v: PyValue | undefined = n === undefined ? known?.valuesOf?.(name) : { kind: 'int', value: BigInt(n) };
      asked.set(name, v);
      return v;
    },
    lengthOf: (name) => known?.lengthOf(name),
    binds: () => false,
    // No module (a test's expression alone) binds nothing: each builtin is Python's.
    builtin: (name) => known?.builtin(name) ?? true,
  };
}

/**
 * What iterating `node` gives: its items when they are known and at most
 * MAX_STEPS, and how many there are. A display of names or a name of known
 * length has a length and no items.
 */
function iteration(
  node: SyntaxNode,
  scope: ValueScope,
): { items?: readonly PyValue[] | undefined; length: number } | undefined {
  const v = evaluate(node, scope);
  if (!v) {
    const length = lengthOnly(node, scope);
    return length === undefined ? undefined : { length };
  }
  const size = sizeOf(v);
  if (size === undefined || size > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  const length = Number(size);
  return { items: length <= MAX_STEPS ? itemsOf(v, MAX_STEPS) : undefined, length };
}

/** How many items iterating `node` gives, when its items are not known themselves: `(a, b)`, `NAMES`. */
function lengthOnly(node: SyntaxNode, scope: ValueScope): number | undefined {
  if (node.type === 'identifier') return scope.binds(node.text) ? undefined : scope.lengthOf(node.text);
  if (node.type !== 'tuple' && node.type !== 'list') return undefined;
  const items = operands(node);
  return items.some((i) => i.type === 'list_splat' || i.type === 'parenthesized_list_splat') ? undefined : items.length;
}

const KEYWORDS = ['for', 'in', 'if', 'async'] as const;

interface Keyword {
  at: number;
  word: string;
}

/** The next `for`, `in`, `if` or `async` at bracket depth 0 in [from, to), outside strings and comments. */
function nextKeyword(text: string, from: number, to: number): Keyword | undefined {
  for (let at = from; at < to;) {
    const i = scanTo(text, at, to, 'fia');
    if (i >= to || !'fia'.includes(text[i]!)) return undefined;
    if (!continuesName(text.charCodeAt(i - 1)))
      for (const word of KEYWORDS)
        if (text.startsWith(word, i) && !continuesName(text.charCodeAt(i + word.length))) return { at: i, word };
    at = i + 1;
  }
  return undefined;
}

/** A name's character, or a `.` before an attribute: either way not the start or end of a keyword. */
function continuesName(code: number): boolean {
  return isNameCode(code) || code === 46;
}

function trimmed(text: string, from: number, to: number): Span {
  const start = skipSpaceAndComments(text, from, to);
  return { start, end: trimEnd(text, start, to) };
}

/**
 * The number of elements the comprehension `node` makes, its `for` clauses
 * run over the values they take and its `if` clauses evaluated on each
 * (staticValue.ts); undefined when any of that needs the module to run. A
 * loop whose values are not known still counts by its length (a display of
 * names, a name of known length) where nothing reads its names.
 */
export function countElements(node: SyntaxNode, known: KnownNames | undefined): number | undefined {
  if (node.type !== 'list_comprehension' || node.hasError) return undefined;
  const body = node.childForFieldName('body');
  const clauses = operands(node).filter((c) => c.id !== body?.id);
  // The names the clauses bind are the comprehension's own from its start: one read before its clause binds it
  // raises, and none of them is the module's.
  const targets: (string[] | undefined)[] = clauses.map((c) => {
    if (c.type !== 'for_in_clause' || c.child(0)?.type === 'async') return undefined;
    const left = c.childForFieldName('left');
    return left ? targetNames(left) : undefined;
  });
  const bound = new Set<string>();
  for (const [i, c] of clauses.entries()) {
    if (c.type === 'if_clause') continue;
    const names = targets[i];
    if (!names) return undefined;
    for (const n of names) bound.add(n);
  }
  const values = new Map<string, PyValue | undefined>();
  const module = moduleScope(known);
  const ownScope: ValueScope = {
    valueOf: (name) => (bound.has(name) ? values.get(name) : module.valueOf(name)),
    lengthOf: (name) => (bound.has(name) ? undefined : module.lengthOf(name)),
    binds: (name) => bound.has(name),
    builtin: (name) => !bound.has(name) && module.builtin(name),
  };
  let steps = 0;
  // Depth first, as Python runs the clauses: the count of elements clause `i` and those after it make.
  const run = (i: number): number | undefined => {
    if (++steps > MAX_STEPS) return undefined;
    const clause = clauses[i];
    if (!clause) return 1;
    if (clause.type === 'if_clause') {
      const [condition, ...more] = operands(clause);
      const v = condition && more.length === 0 ? evaluate(condition, ownScope) : undefined;
      return v === undefined ? undefined : truthy(v) ? run(i + 1) : 0;
    }
    const right = clause.childForFieldName('right');
    // The first iterable is evaluated in the module's scope, before any of the comprehension's names exist.
    const it = right ? iteration(right, i === 0 ? module : ownScope) : undefined;
    if (!it) return undefined;
    const { items, length } = it;
    const names = targets[i]!;
    let total = 0;
    for (let k = 0; k < length; k++) {
      if (!bind(names, items?.[k], values)) return undefined;
      const n = run(i + 1);
      if (n === undefined) return undefined;
      total += n;
      if (total > MAX_COMPREHENSION_ELEMENTS) return undefined;
    }
    for (const n of names) values.delete(n);
    return total;
  };
  return clauses[0]?.type === 'for_in_clause' ? run(0) : undefined;
}

/** The names a `for` target binds: `x`, or `a, b` / `(a, b)` / `[a, b]` of plain names. */
function targetNames(left: SyntaxNode): string[] | undefined {
  if (left.type === 'identifier') return [left.text];
  if (left.type !== 'pattern_list' && left.type !== 'tuple_pattern' && left.type !== 'list_pattern') return undefined;
  const names: string[] = [];
  for (const c of operands(left)) {
    if (c.type !== 'identifier') return undefined;
    names.push(c.text);
  }
  return names;
}

/**
 * Binds `names` to `value` the way a `for` target does (unpacking a
 * sequence into several names); an unknown value leaves them unknown. False
 * where Python raises (a sequence of another length).
 */
function bind(names: readonly string[], value: PyValue | undefined, values: Map<string, PyValue | undefined>): boolean {
  if (names.length === 1) values.set(names[0]!, value);
  else if (value === undefined) for (const n of names) values.set(n, undefined);
  else {
    const items = itemsOf(value, names.length);
    if (!items || items.length !== names.length) return false;
    names.forEach((n, j) => values.set(n, items[j]));
  }
  return true;
}
