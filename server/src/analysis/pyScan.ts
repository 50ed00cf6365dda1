/**
 * Bracket- and string-aware scanning of Python source inside spans the
 * syntax tree has already delimited (a module-level statement, a template
 * body). Reading argument lists and dict displays from the text this way
 * avoids one call into wasm per node, which made extraction slower than
 * parsing. Code is told from text by reading (CodeReader) only in files the
 * parser found free of errors, and the tree answers wherever that reading
 * is unsure (see templateBody.ts). While a module is extracted, the
 * layout's map of its text (textMap.ts) answers where a bracket, string or
 * comment ends, and whether an offset is code, without reading again.
 */
import { Kind, mapOf, type TextMap } from './textMap';

export interface Span {
  start: number;
  end: number;
}

const QUOTE2 = 34; // "
const QUOTE1 = 39; // '
const HASH = 35;
const BACKSLASH = 92;
const NEWLINE = 10;

/** Offset just past the string literal whose opening quote is at `at`, or -1 if it never closes. */
export function skipString(text: string, at: number): number {
  // Character codes rather than one-character strings: this loop sees most of the text of every statement.
  const q = text.charCodeAt(at);
  const map = mapOf(text);
  if (map !== undefined && (q === QUOTE2 || q === QUOTE1) && map.kinds[at] === Kind.Code) return map.ends[at]!;
  const n = text.length;
  const triple = text.charCodeAt(at + 1) === q && text.charCodeAt(at + 2) === q;
  for (let i = at + (triple ? 3 : 1); i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) {
      i++;
      continue;
    }
    if (c === q) {
      if (!triple) return i + 1;
      if (text.charCodeAt(i + 1) === q && text.charCodeAt(i + 2) === q) return i + 3;
    } else if (c === NEWLINE && !triple) return -1;
  }
  return -1;
}

/**
 * The closers scanTo expects, by depth: one array for every scan, since a
 * scan calls nothing that scans (a new stack per bracketed scan was most of
 * what the scanner allocated).
 */
const closers: number[] = [];

/**
 * The first offset in [from, to) holding one of `stops` (at most three
 * characters, never quotes or brackets) at bracket depth 0 relative to
 * `from`; strings, comments and nested brackets are skipped. Stops as well
 * at an unmatched closer; returns `to` when nothing is found. Resumable:
 * after a stop at depth 0, scanning on from the next offset is again at
 * depth 0.
 */
export function scanTo(text: string, from: number, to: number, stops: string): number {
  const s0 = stops.length > 0 ? stops.charCodeAt(0) : -1;
  const s1 = stops.length > 1 ? stops.charCodeAt(1) : -1;
  const s2 = stops.length > 2 ? stops.charCodeAt(2) : -1;
  // From code, every bracket, quote and `#` met is in code: the map says where each ends.
  const map = mapOf(text);
  let depth = 0;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (depth === 0 && (code === s0 || code === s1 || code === s2)) return i;
    if (code === QUOTE2 || code === QUOTE1) {
      const end = skipString(text, i);
      if (end < 0) return to;
      i = end - 1;
    } else if (code === HASH) {
      const nl = text.indexOf('\n', i);
      if (nl < 0 || nl >= to) return to;
      i = nl - 1;
    } else if (code === BACKSLASH && text.charCodeAt(i + 1) === NEWLINE) {
      i++;
    } else if (code === 40 || code === 91 || code === 123) {
      if (map !== undefined && map.kinds[i] === Kind.Code) {
        // The group is skipped whole, so the scan stays at depth 0.
        const close = map.ends[i]!;
        if (close >= to) return to;
        i = close;
        continue;
      }
      closers[depth++] = code === 40 ? 41 : code + 2;
    } else if (code === 41 || code === 93 || code === 125) {
      if (depth === 0 || closers[--depth] !== code) return i;
    }
  }
  return to;
}

/** Offset of the bracket closing the one at `at`, or -1. */
export function matchBracket(text: string, at: number, limit = text.length): number {
  const open = text.charCodeAt(at);
  // `)` follows `(`; `]` and `}` are two code points after `[` and `{`.
  const close = open === 40 ? 41 : open === 91 || open === 123 ? open + 2 : -1;
  const map = mapOf(text);
  if (map !== undefined && close > 0 && map.kinds[at] === Kind.Code) {
    const end = map.ends[at]!;
    return end < limit ? end : -1;
  }
  const end = scanTo(text, at + 1, limit, '');
  return end < limit && text.charCodeAt(end) === close ? end : -1;
}

/** What ends an expression at depth 0: a line break, `;` or a comment. */
const EXPRESSION_STOPS = '\n;#';

/** Where an expression starting at `from` ends: a newline, `;` or comment at depth 0, or an unmatched closer. */
export function expressionEnd(text: string, from: number, limit = text.length): number {
  return trimEnd(text, from, scanTo(text, from, limit, EXPRESSION_STOPS));
}

/**
 * expressionEnd, or -1 where an unmatched closer (`f(a,] b)`) ends the scan
 * first: a reader that goes on from the end would start on that closer and
 * end there again.
 */
export function closedExpressionEnd(text: string, from: number, limit: number): number {
  const stop = scanTo(text, from, limit, EXPRESSION_STOPS);
  if (stop < limit && !EXPRESSION_STOPS.includes(text[stop]!)) return -1;
  return trimEnd(text, from, stop);
}

/** Whether the code unit can continue a Python name: ASCII letters, digits, `_`, and anything past ASCII. */
export function isNameCode(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code > 127
  );
}

/** Whether `span` is exactly one name, read without slicing it. */
export function isName(text: string, span: Span): boolean {
  if (span.end <= span.start) return false;
  const first = text.charCodeAt(span.start);
  if (first >= 48 && first <= 57) return false;
  for (let i = span.start; i < span.end; i++) if (!isNameCode(text.charCodeAt(i))) return false;
  return true;
}

/** Whether a display's items include a `*rest`, whose length is not known. */
export function hasStarred(text: string, items: readonly Span[]): boolean {
  for (const item of items) if (text.charCodeAt(item.start) === 42) return true;
  return false;
}

/** Whether the code unit is whitespace for `/\s/` (ASCII answered without a regular expression). */
export function isSpaceCode(code: number): boolean {
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return SPACE.test(String.fromCharCode(code));
}

const SPACE = /\s/;

export function trimEnd(text: string, from: number, end: number): number {
  while (end > from && isSpaceCode(text.charCodeAt(end - 1))) end--;
  return end;
}

/** Skips whitespace and whole comments. */
export function skipSpaceAndComments(text: string, from: number, to: number): number {
  let i = from;
  for (;;) {
    i = trimStart(text, i, to);
    if (text.charCodeAt(i) !== HASH) return i;
    const nl = text.indexOf('\n', i);
    if (nl < 0 || nl >= to) return to;
    i = nl;
  }
}

export function trimStart(text: string, from: number, end: number): number {
  while (from < end && isSpaceCode(text.charCodeAt(from))) from++;
  return from;
}

/** The comma-separated items of [from, to), trimmed; an empty trailing item is dropped. */
export function splitTopLevel(text: string, from: number, to: number): Span[] {
  const out: Span[] = [];
  for (let start = from; start <= to;) {
    const comma = scanTo(text, start, to, ',');
    const s = skipSpaceAndComments(text, start, comma);
    const e = trimEnd(text, s, comma);
    if (e > s) out.push({ start: s, end: e });
    if (comma >= to || text.charCodeAt(comma) !== 44) break;
    start = comma + 1;
  }
  return out;
}

/** First top-level `=` (not `==`, `<=`, `>=`, `!=`, `:=`) or `:` (not `:=`) in [from, to), or -1. */
export function findTopLevel(text: string, from: number, to: number, ch: '=' | ':'): number {
  for (let at = from; at < to;) {
    const i = scanTo(text, at, to, ch);
    if (i >= to || text[i] !== ch) return -1;
    const next = text[i + 1];
    const prev = text[i - 1] ?? '';
    const compound = ch === '=' ? next === '=' || '=<>!:'.includes(prev) : next === '=';
    if (!compound) return i;
    at = i + 2;
  }
  return -1;
}

/** Whether the code unit is one of a string prefix's letters (r, b, u, f in either case). */
function isPrefixLetter(code: number): boolean {
  const lower = code | 0x20;
  return lower === 0x72 || lower === 0x62 || lower === 0x75 || lower === 0x66;
}

/**
 * How many prefix letters (up to two of r, b, u, f in either case) stand
 * before a quote at `at`, or -1 when no quote follows them: what
 * `/[rRbBuUfF]{0,2}(?=["'])/y` matches, without a match array. Every
 * literal argument and dict key asks it.
 */
export function stringPrefixLength(text: string, at: number): number {
  let i = at;
  while (i < at + 2 && isPrefixLetter(text.charCodeAt(i))) i++;
  const c = text.charCodeAt(i);
  return c === QUOTE1 || c === QUOTE2 ? i - at : -1;
}

/** Whether the code unit is in `\w` as regular expressions without the `u` flag read it (ASCII only). */
export function isWordCode(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/**
 * Where the ASCII identifier (`[A-Za-z_]\w*`) starting at `at` ends, read
 * no further than `limit`; `at` itself when none starts there.
 */
export function identifierEnd(text: string, at: number, limit = text.length): number {
  if (at >= limit) return at;
  const first = text.charCodeAt(at);
  if (!((first >= 65 && first <= 90) || (first >= 97 && first <= 122) || first === 95)) return at;
  let i = at + 1;
  while (i < limit && isWordCode(text.charCodeAt(i))) i++;
  return i;
}

/**
 * Skips whitespace as `\s*` reads it, no further than `limit`. Sticky
 * patterns over the whole text read past a span's end: their readers here
 * take no limit and their callers compare the end with the span's.
 */
export function skipSpaces(text: string, at: number, limit = text.length): number {
  while (at < limit && isSpaceCode(text.charCodeAt(at))) at++;
  return at;
}

/** Whether the string whose opening quote is at `quote` has an `f` among its prefix letters. */
export function isFormatString(text: string, quote: number): boolean {
  for (let i = quote - 1; i >= quote - 2 && i >= 0; i--) {
    const code = text.charCodeAt(i);
    if (!isPrefixLetter(code)) return false;
    if ((code | 0x20) === 0x66) return true;
  }
  return false;
}

/**
 * Whether the f-string from `open` (its opening quote) to `end` (just past
 * the quote that closed it for skipString) really ends there. Since Python
 * 3.12 a replacement field may hold the string's own quote, which
 * skipString takes for the end: the field is then still open at that
 * quote. A field may hold strings of the other quote (of either, in a
 * triple-quoted string); one holding a single-quoted string's own quote,
 * or a string that does not close, is not vouched for.
 */
export function fStringEndsAt(text: string, open: number, end: number): boolean {
  const q = text.charCodeAt(open);
  const triple = text.charCodeAt(open + 1) === q && text.charCodeAt(open + 2) === q;
  return fieldDepthAt(text, open, end - (triple ? 3 : 1)) === 0;
}

/**
 * How many replacement fields are open at `until` in the f-string whose
 * opening quote is at `open` (0: its literal text), or -1 where a quote
 * leaves that unsure (see fStringEndsAt).
 */
function fieldDepthAt(text: string, open: number, until: number): number {
  const q = text.charCodeAt(open);
  const triple = text.charCodeAt(open + 1) === q && text.charCodeAt(open + 2) === q;
  let depth = 0;
  for (let i = open + (triple ? 3 : 1); i < until; i++) {
    const code = text.charCodeAt(i);
    if (code === BACKSLASH) i++;
    else if (code === OPEN_BRACE) {
      if (depth === 0 && text.charCodeAt(i + 1) === OPEN_BRACE) i++;
      else depth++;
    } else if (code === CLOSE_BRACE) {
      if (depth > 0) depth--;
      else if (text.charCodeAt(i + 1) === CLOSE_BRACE) i++;
    } else if (depth > 0 && (code === QUOTE1 || code === QUOTE2)) {
      // A string inside a field (`f"{d['k']}"`, `f"""{d["k"]}"""`) is skipped whole, braces and all.
      if (code === q && !triple) return -1;
      const close = skipString(text, i);
      if (close < 0 || close > until) return -1;
      i = close - 1;
    }
  }
  return depth;
}

const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;

/**
 * Tells code from text (strings, comments) at offsets asked in ascending
 * order, reading forward from an offset known to be code: one pass over
 * the text however many offsets are asked, and no call into wasm. Only for
 * a file the parser found free of errors, where every string closes. Where
 * it cannot be sure (inside an f-string, whose replacement fields are code,
 * or past an f-string it cannot delimit) it gives no answer, and the
 * caller asks the syntax tree.
 */
export class CodeReader {
  private lost = false;
  /** The layout's map of the text, which answers at once (textMap.ts). */
  private readonly map: TextMap | undefined;

  constructor(
    private readonly text: string,
    /** An offset in code, outside any string or comment. */
    private at: number,
  ) {
    this.map = mapOf(text);
  }

  /**
   * Whether `offset` is reached in code (a string or comment starting
   * exactly there counts as code: its opening is): true; false inside a
   * string or comment; undefined when unsure, or for an offset before one
   * asked earlier.
   */
  isCode(offset: number): boolean | undefined {
    const text = this.text;
    const map = this.map;
    if (map !== undefined) {
      const kind = map.kinds[offset];
      if (kind === Kind.Code) return true;
      if (kind === Kind.Text) return false;
      return fieldDepthAt(text, map.opens[offset]!, offset) !== 0 ? undefined : false;
    }
    let i = this.at;
    if (this.lost || offset < i) return undefined;
    while (i < offset) {
      const code = text.charCodeAt(i);
      if (code === HASH) {
        const nl = text.indexOf('\n', i);
        const end = nl < 0 ? text.length : nl;
        if (offset < end) return ((this.at = i), false);
        i = end;
      } else if (code === QUOTE2 || code === QUOTE1) {
        const end = skipString(text, i);
        const format = isFormatString(text, i);
        if (end < 0 || (format && !fStringEndsAt(text, i, end))) return ((this.lost = true), undefined);
        // Inside an f-string: its literal text is text; a field is code, which the caller asks the tree about.
        if (offset < end) return ((this.at = i), format && fieldDepthAt(text, i, offset) !== 0 ? undefined : false);
        i = end;
      } else i++;
    }
    this.at = offset;
    return true;
  }
}

/*
 * Heads of statements and arguments read without a regular expression:
 * extraction asks these a few dozen times per file, and a sticky pattern's
 * exec allocated a match array and its captures each time (about a sixth
 * of what a cold index allocated; bench/index/README.md).
 */

/**
 * After `name =` (not `==`) at `at`, read no further than `limit`: where
 * the value starts, or -1. What `([A-Za-z_]\w*)\s*=(?!=)\s*` matches.
 */
export function keywordValueAt(text: string, at: number, limit = text.length): number {
  const nameEnd = identifierEnd(text, at, limit);
  if (nameEnd === at) return -1;
  const eq = skipSpaces(text, nameEnd, limit);
  if (eq >= limit || text.charCodeAt(eq) !== EQUALS || (eq + 1 < limit && text.charCodeAt(eq + 1) === EQUALS))
    return -1;
  return skipSpaces(text, eq + 1, limit);
}

/**
 * After an assignment target `name =` or `name: annotation =` at `at`
 * (never `==`): where the value starts, or -1. What
 * `([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)\s*` matches.
 */
export function assignedValueAt(text: string, at: number): number {
  const nameEnd = identifierEnd(text, at);
  if (nameEnd === at) return -1;
  let eq = skipSpaces(text, nameEnd);
  if (text.charCodeAt(eq) === COLON) {
    eq++;
    for (let c = text.charCodeAt(eq); eq < text.length && c !== EQUALS && c !== NEWLINE; c = text.charCodeAt(++eq));
  }
  if (text.charCodeAt(eq) !== EQUALS || text.charCodeAt(eq + 1) === EQUALS) return -1;
  return skipSpaces(text, eq + 1);
}

/**
 * The end of the dotted name of a call starting at `at` (`a.b (`), or -1
 * when no `(` follows it. What the capture of
 * `([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*)\s*\(` matches; the `(` is the
 * next non-space after it.
 */
export function calleeEndAt(text: string, at: number): number {
  let end = identifierEnd(text, at);
  if (end === at) return -1;
  for (;;) {
    const dot = skipSpaces(text, end);
    if (text.charCodeAt(dot) !== DOT) break;
    const nameAt = skipSpaces(text, dot + 1);
    const nameEnd = identifierEnd(text, nameAt);
    if (nameEnd === nameAt) break;
    end = nameEnd;
  }
  return text.charCodeAt(skipSpaces(text, end)) === OPEN_PAREN ? end : -1;
}

/** A `def` or `class` head: `async def name` and what follows it up to the next non-space. */
export interface DefinitionHead {
  isAsync: boolean;
  isClass: boolean;
  nameAt: number;
  nameEnd: number;
  /** Just past the whitespace after the name: the `(` of a function's parameters. */
  end: number;
}

/**
 * The `def` or `class` head at `at`, read no further than `limit`: what
 * `^(async\s+)?(def|class)\s+([A-Za-z_]\w*)\s*` matches in the text
 * from `at` to `limit`.
 */
export function definitionHeadAt(text: string, at: number, limit: number): DefinitionHead | undefined {
  let i = at;
  const isAsync = keywordAt(text, i, 'async', limit);
  if (isAsync) i = skipSpaces(text, i + 5, limit);
  const isClass = keywordAt(text, i, 'class', limit);
  if (!isClass && !keywordAt(text, i, 'def', limit)) return undefined;
  const nameAt = skipSpaces(text, i + (isClass ? 5 : 3), limit);
  const nameEnd = identifierEnd(text, nameAt, limit);
  if (nameEnd === nameAt) return undefined;
  return { isAsync, isClass, nameAt, nameEnd, end: skipSpaces(text, nameEnd, limit) };
}

/**
 * Where the `def` or `class` of the decorated statement `st` starts: past
 * each decorator (pushed to `into` when given), or `st.end` when none
 * follows. Within the statement only: a decorator whose bracket never
 * closes runs to its end, where the next statement (another decorator, a
 * def) is not this one's.
 */
export function skipDecorators(text: string, st: Span, into?: Span[]): number {
  let at = st.start;
  while (at < st.end && text[at] === '@') {
    const end = expressionEnd(text, at + 1, st.end);
    into?.push({ start: at, end });
    at = skipSpaceAndComments(text, end, st.end);
  }
  return at;
}

/** Whether the keyword `word` followed by at least one whitespace starts at `at`, all before `limit`. */
export function keywordAt(text: string, at: number, word: string, limit = text.length): boolean {
  const after = at + word.length;
  return after < limit && text.startsWith(word, at) && isSpaceCode(text.charCodeAt(after));
}

/**
 * `@env.template` or `@env.scenario` at `at` (its `@`), read no further
 * than `limit`: what `^@\s*([A-Za-z_]\w*)\s*\.\s*(template|scenario)\b\s*`
 * matches in the text from `at` to `limit`.
 */
export function envDecoratorAt(
  text: string,
  at: number,
  limit: number,
): { nameAt: number; nameEnd: number; kind: 'template' | 'scenario'; end: number } | undefined {
  if (text.charCodeAt(at) !== 64 /* @ */) return undefined;
  const nameAt = skipSpaces(text, at + 1, limit);
  const nameEnd = identifierEnd(text, nameAt, limit);
  if (nameEnd === nameAt) return undefined;
  const dot = skipSpaces(text, nameEnd, limit);
  if (dot >= limit || text.charCodeAt(dot) !== DOT) return undefined;
  const wordAt = skipSpaces(text, dot + 1, limit);
  const kind = text.startsWith('template', wordAt)
    ? 'template'
    : text.startsWith('scenario', wordAt)
      ? 'scenario'
      : undefined;
  const wordEnd = wordAt + 8;
  if (!kind || wordEnd > limit || (wordEnd < limit && isWordCode(text.charCodeAt(wordEnd)))) return undefined;
  return { nameAt, nameEnd, kind, end: skipSpaces(text, wordEnd, limit) };
}

const EQUALS = 61;
const COLON = 58;
const DOT = 46;
const OPEN_PAREN = 40;

/** Whether the sticky `re` matches `text` at `at` (no slice of the statement). */
export function headIs(re: RegExp, text: string, at: number): boolean {
  re.lastIndex = at;
  return re.test(text);
}

/** The sticky `re` matched at `at`, if the match ends by `limit` (no slice of the text). */
export function matchAt(re: RegExp, text: string, at: number, limit: number): RegExpExecArray | null {
  re.lastIndex = at;
  const m = re.exec(text);
  return m && at + m[0].length <= limit ? m : null;
}
