/**
 * Whether a name is written in a module's text before some point, outside
 * `if TYPE_CHECKING:` blocks (which do not run). The index follows only
 * module-level statements; a name bound inside an `if`, a `try` or a loop
 * is found here instead, conservatively: any occurrence counts, even one in
 * a comment, so that what the index cannot follow is never reported.
 */

import { BoundedCache } from './boundedCache';
import { ownString } from './intern';

const TYPE_CHECKING_BLOCK = /^[ \t]*if[ \t]+(?:typing\.)?TYPE_CHECKING[ \t]*:/;

/** Whether the line at `at` sits in an `if TYPE_CHECKING:` block (climbing the blocks by indentation). */
function underTypeChecking(text: string, at: number): boolean {
  let lineStart = text.lastIndexOf('\n', at - 1) + 1;
  let indent = /^[ \t]*/.exec(text.slice(lineStart, at + 1))![0].length;
  while (indent > 0 && lineStart > 0) {
    const prevStart = text.lastIndexOf('\n', lineStart - 2) + 1;
    const line = text.slice(prevStart, lineStart - 1);
    lineStart = prevStart;
    const lead = /^[ \t]*/.exec(line)![0].length;
    if (lead === line.length || line[lead] === '#' || lead >= indent) continue; // blank, comment, same block
    if (TYPE_CHECKING_BLOCK.test(line)) return true;
    indent = lead;
  }
  return false;
}

/**
 * Every mention of the identifier `name` as a name of its own (not an
 * attribute, not part of a longer name), from the start of the text. The
 * expression is shared by every caller, so none may hold it across another
 * call for the same name; building one per call was most of what asking
 * for a name cost.
 */
export function mentionsOf(name: string): RegExp {
  const re =
    mentionPatterns.get(name) ??
    // A copied key: `name` is often cut from a file's text and would keep it alive (intern.ts).
    mentionPatterns.add(ownString(name), new RegExp(`(?<![\\w.])${patternOf(name)}(?!\\w)`, 'g'));
  re.lastIndex = 0;
  return re;
}
const mentionPatterns = new BoundedCache<string, RegExp>(1000);

/**
 * `name` as a pattern. V8 refuses a pattern of tens of thousands of
 * characters, which a name cut from a broken file can be: a longer name is
 * matched by its first characters and any word characters after, which
 * finds it and, at worst, a longer name that shares them (one mention too
 * many, never one too few).
 */
function patternOf(name: string): string {
  return name.length <= LONGEST_PATTERN ? name : `${name.slice(0, LONGEST_PATTERN)}[\\w\\u0080-\\uffff]*`;
}
const LONGEST_PATTERN = 4096;

/** Where `name` is written before `end` outside TYPE_CHECKING blocks; -1 if nowhere, -2 if only under one. */
export function writtenBefore(text: string, name: string, end: number): number {
  const re = mentionsOf(name);
  let typeCheckingOnly = false;
  for (let m = re.exec(text); m && m.index < end; m = re.exec(text)) {
    if (!underTypeChecking(text, m.index)) return m.index;
    typeCheckingOnly = true;
  }
  return typeCheckingOnly ? -2 : -1;
}

/**
 * Whether `name` is mentioned in `span` (anywhere but at `skip` and where
 * `ignored` says), a quick search first. The search reads the span only (V8 slices without copying):
 * one from `span.start` through the rest of the text, for each list a long
 * module knows at each of its statements, made a module of 1,000 lists take
 * seconds.
 */
export function mentionedIn(
  text: string,
  name: string,
  span: { start: number; end: number },
  skip = -1,
  ignored?: (at: number) => boolean,
): boolean {
  const found = text.slice(span.start, span.end).indexOf(name);
  if (found < 0) return false;
  const re = mentionsOf(name);
  re.lastIndex = span.start + found;
  for (let m = re.exec(text); m && m.index < span.end; m = re.exec(text))
    if (m.index !== skip && !ignored?.(m.index)) return true;
  return false;
}

/**
 * The ASCII names (letters, digits, underscores) written in `span` as
 * names of their own by mentionsOf's rule: each longest run of those
 * characters that does not follow a `.`. An ASCII name mentioned in the
 * span is always among them; a name with other characters is not looked
 * for.
 */
export function asciiNamesIn(text: string, span: { start: number; end: number }): Set<string> {
  const names = new Set<string>();
  forEachAsciiName(text, span, (name) => names.add(name));
  return names;
}

/** Each ASCII name asciiNamesIn finds in `span`, with where it is written, in order. */
export function forEachAsciiName(
  text: string,
  span: { start: number; end: number },
  visit: (name: string, at: number) => void,
): void {
  ASCII_RUN.lastIndex = span.start;
  for (let m = ASCII_RUN.exec(text); m && m.index < span.end; m = ASCII_RUN.exec(text))
    if (text.charCodeAt(m.index - 1) !== 46 /* . */) visit(m[0], m.index);
}
const ASCII_RUN = /\w+/g;

/** Whether mentionsOf's ASCII rule covers `name` (asciiNamesIn can find it). */
export function isAsciiName(name: string): boolean {
  return /^\w+$/.test(name);
}
