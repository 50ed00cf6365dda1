/**
 * List comprehensions at module level (`tasks = [solve(word=w) for w in
 * ("a", "b")]`, the SDK's own quickstart): how many elements one makes, when
 * that is known without running the module. Only a single `for` clause
 * without a filter, over a tuple or list display, a `range(...)` of integer
 * literals, or a module-level name bound to one of those (the caller says
 * which: pythonFacts.ts), is counted; anything else is left to discovery
 * (server/README.md).
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
  lengthOfName?: (name: string) => number | undefined,
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
  if (first !== forAt) return uncounted; // `a if c else b for ...`: elements that may not be tasks
  const inAt = nextKeyword(text, forAt.at + 3, close);
  if (!inAt || inAt.word !== 'in') return uncounted;
  // A second `for` or an `if` filter: how many elements remain depends on values.
  if (nextKeyword(text, inAt.at + 2, close)) return uncounted;
  const count = iterableLength(text, trimmed(text, inAt.at + 2, close), lengthOfName);
  if (element.end <= element.start || count === undefined || count > MAX_COMPREHENSION_ELEMENTS) return uncounted;
  return { element, count };
}

const RANGE_CALL = /^range[ \t]*\(/;

/**
 * How many items iterating the expression in `span` yields, when it is a
 * display, a literal `range`, or a name `lengthOfName` knows the length of.
 */
export function iterableLength(
  text: string,
  span: Span,
  lengthOfName?: (name: string) => number | undefined,
): number | undefined {
  const { start, end } = span;
  const c = text.charCodeAt(start);
  if (lengthOfName && isName(text, span)) return lengthOfName(text.slice(start, end));
  if ((c === 40 || c === 91) && matchBracket(text, start, end) === end - 1) {
    const items = splitTopLevel(text, start + 1, end - 1);
    // `(x)` is x itself, not a one-element tuple.
    if (c === 40 && items.length === 1 && text.charCodeAt(trimEnd(text, start + 1, end - 1) - 1) !== 44)
      return iterableLength(text, items[0]!, lengthOfName);
    return hasStarred(text, items) ? undefined : items.length;
  }
  if (!RANGE_CALL.test(text.slice(start, Math.min(end, start + 16)))) return undefined;
  const paren = text.indexOf('(', start);
  if (matchBracket(text, paren, end) !== end - 1) return undefined;
  const bounds: number[] = [];
  for (const arg of splitTopLevel(text, paren + 1, end - 1)) {
    const lit = literalArg(text, arg);
    if (lit?.kind !== 'int') return undefined;
    bounds.push(Number(lit.value));
  }
  const [a, b, step] =
    bounds.length === 1 ? [0, bounds[0]!, 1] : bounds.length === 2 ? [bounds[0]!, bounds[1]!, 1] : bounds;
  if (bounds.length > 3 || a === undefined || b === undefined || !step) return undefined; // range(x, y, 0) raises
  return Math.max(0, Math.ceil((b - a) / step));
}

const KEYWORDS = ['for', 'in', 'if', 'async'] as const;

/** The next `for`, `in`, `if` or `async` at bracket depth 0 in [from, to), outside strings and comments. */
function nextKeyword(text: string, from: number, to: number): { at: number; word: string } | undefined {
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
