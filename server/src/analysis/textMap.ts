/**
 * What the statement layout (moduleLayout.ts) learnt in its one pass over an
 * error-free module's text, kept for the scanners of pyScan.ts while that
 * module is extracted: where each bracket closes, where each string and
 * comment ends, and which offsets are code. Before, every reader walked the
 * same text again (each statement's end, each call's brackets and
 * arguments, each template body from its start to each yield): three to
 * four passes over every file (bench/index/README.md).
 *
 * One map exists at a time, for the module being extracted; the scanners
 * use it only when asked about that very text (`mapOf`), and fall back to
 * reading the text otherwise. The arrays are reused from file to file
 * (a longer text gets its own, given up with the map); only the kinds are
 * cleared per file, and an end is read only where the kinds say a bracket
 * or quote opens in code, which this file's layout wrote.
 */

/** What an offset holds, for CodeReader. */
export const enum Kind {
  /** Code, or the first character of a string or comment (its opening counts as code). */
  Code = 0,
  /** Inside a plain string, or a comment. */
  Text = 1,
  /** Inside an f-string, whose replacement fields are code. */
  Format = 2,
}

export interface TextMap {
  /** The kind of each offset. */
  kinds: Uint8Array;
  /** At an opening bracket in code: its closer's offset. At a quote opening a string: just past the string. */
  ends: Int32Array;
  /** Inside an f-string: where its opening quote is. */
  opens: Int32Array;
}

/** The length of text the kept arrays serve: nine bytes per character, 576 KB. */
const KEPT = 1 << 16;
const map: TextMap = { kinds: new Uint8Array(KEPT), ends: new Int32Array(KEPT), opens: new Int32Array(KEPT) };
/** The text the map describes once complete, else undefined. */
let mapped: string | undefined;

/** Starts a map of `text` (the layout's pass fills it, then calls completeMap). */
export function startMap(text: string): void {
  mapped = undefined;
  const n = text.length + 1;
  if (map.kinds.length < n) allocate(n);
  else map.kinds.fill(Kind.Code, 0, n);
}

export function noteString(quote: number, end: number, format: boolean): void {
  map.ends[quote] = end;
  if (end > quote + 1) {
    map.kinds.fill(format ? Kind.Format : Kind.Text, quote + 1, end);
    if (format) map.opens.fill(quote, quote + 1, end);
  }
}

/** A comment's end is not kept: the scanners find it with `indexOf`, which is as fast. */
export function noteComment(hash: number, lineEnd: number): void {
  if (lineEnd > hash + 1) map.kinds.fill(Kind.Text, hash + 1, lineEnd);
}

export function noteBracket(open: number, close: number): void {
  map.ends[open] = close;
}

/** The layout read all of `text`: the map holds for it until the next startMap or dropMap. */
export function completeMap(text: string): void {
  mapped = text;
}

/** Forgets the map (and with it the text, which must not outlive its extraction). */
export function dropMap(): void {
  mapped = undefined;
  if (map.kinds.length > KEPT) allocate(KEPT);
}

function allocate(size: number): void {
  map.kinds = new Uint8Array(size);
  map.ends = new Int32Array(size);
  map.opens = new Int32Array(size);
}

/** The map when it describes `text`, else undefined. */
export function mapOf(text: string): TextMap | undefined {
  return mapped !== undefined && mapped === text ? map : undefined;
}
