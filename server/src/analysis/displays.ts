/**
 * The items of the list and tuple displays a module-level statement holds
 * (`[a, b]`, `(a, b)`, `a, b`, `[a] + [b]`), and of the comprehensions the
 * index can count (comprehension.ts).
 */
import { mayBeComprehension, readComprehension } from './comprehension';
import { knownNames, nodeAt } from './knownValues';
import { isName, matchBracket, scanTo, splitTopLevel, trimEnd, trimStart, type Span } from './pyScan';
import { UNCOUNTED } from './pythonModule';

/**
 * Items of a list/tuple display (`[a, b]`, `(a, b)`, `a, b`), or of displays
 * joined with `+`, or undefined when `span` is none of these.
 */
export function sequenceItems(text: string, span: Span): Span[] | undefined {
  const first = text[span.start];
  if (first === '[' || first === '(') {
    const close = matchBracket(text, span.start, span.end);
    if (close === span.end - 1) return displayItems(text, span, close);
    const joined = close > 0 ? joinedItems(text, span, first) : undefined;
    if (joined) return joined;
  }
  // Most right-hand sides are a single expression: one scan for a comma at depth 0 decides, without the list.
  const comma = scanTo(text, span.start, span.end, ',');
  if (comma >= span.end || text.charCodeAt(comma) !== 44) return undefined;
  const items = splitTopLevel(text, span.start, span.end);
  return items.length > 1 ? items : undefined;
}

/** Items of the display `span`, whose opening bracket closes at `close`, its last character. */
function displayItems(text: string, span: Span, close: number): Span[] | undefined {
  const items = splitTopLevel(text, span.start + 1, close);
  const first = text[span.start];
  // `[f(a) for a, b in pairs]`: the comma of a comprehension's target splits the text too.
  const commaInFor = items.length > 1 && first === '[' && mayBeComprehension(text, items[0]!);
  if (items.length !== 1 && !commaInFor) return items;
  // `(call())` is the call itself, not a tuple.
  if (first === '(' && !/,\s*$/.test(text.slice(span.start + 1, close))) return undefined;
  // `[solve(word=w) for w in ("a", "b")]`: one element expression, as many times as the loop runs.
  const comprehension = first === '[' ? readComprehension(text, span.start, close, knownNames, nodeAt) : undefined;
  if (!comprehension) return items;
  const { element, count } = comprehension;
  // `[t for t in ...]`: a bare name is most likely the loop's variable, whatever the module binds to it.
  if (count === undefined || isName(text, element)) return UNCOUNTED;
  return new Array<Span>(count).fill(element);
}

/**
 * `[a] + [b for x in (1, 2)]` or `(a,) + (b,)`: the items of each display in
 * turn, when every term between the `+` signs is a display of the first
 * one's kind (a list and a tuple do not add up); UNCOUNTED when a term's
 * length is not known; undefined when `span` is no such sum.
 */
function joinedItems(text: string, span: Span, bracket: string): Span[] | undefined {
  const out: Span[] = [];
  for (let from = span.start; from < span.end;) {
    const plus = scanTo(text, from, span.end, '+');
    if (plus < span.end && text.charCodeAt(plus) !== 43) return undefined; // an unmatched closer
    const term = { start: trimStart(text, from, plus), end: trimEnd(text, from, plus) };
    if (text[term.start] !== bracket) return undefined;
    const close = matchBracket(text, term.start, term.end);
    if (close !== term.end - 1) return undefined;
    const items = displayItems(text, term, close);
    if (!items) return undefined;
    if (items === UNCOUNTED) return UNCOUNTED;
    out.push(...items);
    from = plus + 1;
  }
  return out;
}
