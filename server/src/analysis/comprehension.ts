/**
 * List comprehensions at module level (`tasks = [solve(word=w) for w in
 * ("a", "b")]`, the SDK's own quickstart): how many elements one makes, when
 * that is known without running the module. Its `for` clauses, without a
 * filter, must each run over a tuple or list display, a `range(...)` whose
 * arguments are integer literals, names bound to one or `len(...)` of a
 * name of known length, or a module-level name bound to one of those (the
 * caller says which names it knows: pythonFacts.ts); the count is their
 * product. Anything else is left to discovery (server/README.md).
 */
import { literalArg } from './literalArg';
import {
  hasStarred,
  isName,
  isNameCode,
  matchBracket,
  scanTo,
  skipSpaceAndComments,
  splitTopLevel,
  trimEnd,
  type Span,
} from './pyScan';

/** More elements than this are not listed: a `range(10**6)`-sized suite would swamp the index. */
export const MAX_COMPREHENSION_ELEMENTS = 2000;

/** What the module knows of names bound at its top level, as of the statement being read. */
export interface KnownNames {
  /** How many items the name's value has (a display, a counted comprehension, a literal range). */
  lengthOf(name: string): number | undefined;
  /** The integer the name is bound to (`COUNT = 10`). */
  intOf(name: string): number | undefined;
}

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
  known?: KnownNames,
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
  let count = 1;
  // Names the clauses bind: a later clause's iterable sees them, not the module's.
  let bound: string[] | undefined;
  for (let clause: Keyword | undefined = forAt; clause;) {
    const inAt = nextKeyword(text, clause.at + 3, close);
    if (!inAt || inAt.word !== 'in') return uncounted;
    const next = nextKeyword(text, inAt.at + 2, close);
    // An `if` filter: how many elements remain depends on values.
    if (next && next.word !== 'for') return uncounted;
    const span = trimmed(text, inAt.at + 2, next?.at ?? close);
    const n = iterableLength(text, span, bound && known ? shadowed(known, bound) : known);
    if (n === undefined) return uncounted;
    count *= n;
    if (count > MAX_COMPREHENSION_ELEMENTS) return uncounted;
    if (next) (bound ??= []).push(...(text.slice(clause.at + 3, inAt.at).match(NAMES) ?? []));
    clause = next;
  }
  return { element, count };
}

const IDENTIFIER = String.raw`[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*`;
/** Every identifier in a `for` target (`a`, `(a, b)`, `a, *rest`). */
const NAMES = new RegExp(IDENTIFIER, 'gu');

function shadowed(known: KnownNames, names: readonly string[]): KnownNames {
  return {
    lengthOf: (name) => (names.includes(name) ? undefined : known.lengthOf(name)),
    intOf: (name) => (names.includes(name) ? undefined : known.intOf(name)),
  };
}

const RANGE_CALL = /^range[ \t]*\(/;
const LEN_OF_NAME = new RegExp(String.raw`^len[ \t]*\([ \t]*(${IDENTIFIER})[ \t]*\)$`, 'u');

/**
 * How many items iterating the expression in `span` yields, when it is a
 * display, a `range` of known integers, or a name `known` knows the length of.
 */
export function iterableLength(text: string, span: Span, known?: KnownNames): number | undefined {
  const { start, end } = span;
  const c = text.charCodeAt(start);
  if (known && isName(text, span)) return known.lengthOf(text.slice(start, end));
  if ((c === 40 || c === 91) && matchBracket(text, start, end) === end - 1) {
    const items = splitTopLevel(text, start + 1, end - 1);
    // `(x)` is x itself, not a one-element tuple.
    if (c === 40 && items.length === 1 && text.charCodeAt(trimEnd(text, start + 1, end - 1) - 1) !== 44)
      return iterableLength(text, items[0]!, known);
    return hasStarred(text, items) ? undefined : items.length;
  }
  if (!RANGE_CALL.test(text.slice(start, Math.min(end, start + 16)))) return undefined;
  const paren = text.indexOf('(', start);
  if (matchBracket(text, paren, end) !== end - 1) return undefined;
  const bounds: number[] = [];
  for (const arg of splitTopLevel(text, paren + 1, end - 1)) {
    const n = knownInt(text, arg, known);
    if (n === undefined) return undefined;
    bounds.push(n);
  }
  const [a, b, step] =
    bounds.length === 1 ? [0, bounds[0]!, 1] : bounds.length === 2 ? [bounds[0]!, bounds[1]!, 1] : bounds;
  if (bounds.length > 3 || a === undefined || b === undefined || !step) return undefined; // range(x, y, 0) raises
  return Math.max(0, Math.ceil((b - a) / step));
}

/** A `range` argument's value: an integer literal, a name bound to one, or `len(name)` of a known length. */
function knownInt(text: string, arg: Span, known: KnownNames | undefined): number | undefined {
  const lit = literalArg(text, arg);
  if (lit) return lit.kind === 'int' ? Number(lit.value) : undefined;
  if (!known) return undefined;
  if (isName(text, arg)) return known.intOf(text.slice(arg.start, arg.end));
  const len = LEN_OF_NAME.exec(text.slice(arg.start, arg.end));
  return len ? known.lengthOf(len[1]!) : undefined;
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
