/**
 * Bracket- and string-aware scanning of Python source inside spans the
 * syntax tree has already delimited (a module-level statement, a template
 * body). Reading argument lists and dict displays from the text this way
 * avoids one call into wasm per node, which made extraction slower than
 * parsing; the tree still decides what is code (see pythonFacts.ts).
 */

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
  let depth = 0;
  // Most scans never meet a bracket: the stack of expected closers is made on the first one.
  let stack: number[] | undefined;
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
      (stack ??= []).push(code === 40 ? 41 : code + 2);
      depth++;
    } else if (code === 41 || code === 93 || code === 125) {
      if (depth === 0 || stack!.pop() !== code) return i;
      depth--;
    }
  }
  return to;
}

/** Offset of the bracket closing the one at `at`, or -1. */
export function matchBracket(text: string, at: number, limit = text.length): number {
  const open = text.charCodeAt(at);
  // `)` follows `(`; `]` and `}` are two code points after `[` and `{`.
  const close = open === 40 ? 41 : open === 91 || open === 123 ? open + 2 : -1;
  const end = scanTo(text, at + 1, limit, '');
  return end < limit && text.charCodeAt(end) === close ? end : -1;
}

/** Where an expression starting at `from` ends: a newline, `;` or comment at depth 0, or an unmatched closer. */
export function expressionEnd(text: string, from: number, limit = text.length): number {
  return trimEnd(text, from, scanTo(text, from, limit, '\n;#'));
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
