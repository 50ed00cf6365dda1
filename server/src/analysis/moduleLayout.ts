/**
 * Where each module-level statement starts, read from the text of a file
 * the parser found free of errors: the offsets the root node's named
 * children start at (statements, and the comments tree-sitter counts among
 * them), without asking the tree for them: building a node object per child
 * was an eighth of an environment file's extraction (bench/index/README.md).
 * The tree only confirms the count (pythonFacts.ts); where the reading is
 * unsure or the count differs, the tree's own children are used.
 *
 * Python's layout decides: a statement starts at column 0 of a line that no
 * bracket, string or backslash carries over from the line before, except
 * the clauses that continue a compound statement (`else`, `elif`,
 * `except`, `finally`) and the `def` or `class` under decorators; and after
 * a `;` of a simple statement written at column 0.
 */
import { fStringEndsAt, isFormatString, isNameCode, skipString } from './pyScan';
import { completeMap, noteBracket, noteComment, noteString, startMap } from './textMap';

const NEWLINE = 10;
const RETURN = 13;
const SPACE = 32;
const TAB = 9;
const BYTE_ORDER_MARK = 0xfeff;
const HASH = 35;
const AT = 64;
const BACKSLASH = 92;
const SEMICOLON = 59;
const QUOTE2 = 34;
const QUOTE1 = 39;

/** What a line's first word makes of it. */
const enum Head {
  /** `else`, `elif`, `except`, `finally`: the compound statement above goes on. */
  Clause,
  /** `if`, `for`, `while`, `try`, `with`, `def`, `class`, `async`: a `;` on the line belongs to its body. */
  Compound,
  /** `match`, a soft keyword: the statement may be either kind. */
  Match,
  Other,
}

/** Whether `word` is written at `at` as a whole word (no slice of the text). */
function wordIs(text: string, at: number, word: string): boolean {
  return text.startsWith(word, at) && !isNameCode(text.charCodeAt(at + word.length));
}

const HEAD_WORDS: readonly (readonly [string, Head])[] = [
  ['else', Head.Clause],
  ['elif', Head.Clause],
  ['except', Head.Clause],
  ['finally', Head.Clause],
  ['if', Head.Compound],
  ['for', Head.Compound],
  ['while', Head.Compound],
  ['try', Head.Compound],
  ['with', Head.Compound],
  ['def', Head.Compound],
  ['class', Head.Compound],
  ['async', Head.Compound],
  ['match', Head.Match],
];
/** The head words by their first character's code, so that a line is compared with three at most. */
const HEADS_BY_FIRST: (readonly [string, Head])[][] = [];
for (const entry of HEAD_WORDS) (HEADS_BY_FIRST[entry[0].charCodeAt(0)] ??= []).push(entry);

/** What the word a line starts with at `at` makes of the line. */
function headAt(text: string, at: number): Head {
  const words = HEADS_BY_FIRST[text.charCodeAt(at)];
  if (words) for (const [word, head] of words) if (wordIs(text, at, word)) return head;
  return Head.Other;
}

/**
 * The start offsets of the module's statements, in order, or undefined
 * where the text says something this reading does not vouch for: an
 * f-string whose field holds its own quote, a lone carriage return, a line
 * starting with a control character, a `;` after `match` (a soft keyword,
 * so the statement may be either kind). Only for text tree-sitter parsed
 * without errors. The same pass maps the text's brackets, strings and
 * comments for the scanners (textMap.ts).
 */
export function moduleStatementStarts(text: string): number[] | undefined {
  startMap(text);
  const starts: number[] = [];
  const n = text.length;
  let depth = 0;
  /** At the start of a physical line that begins a logical line (no bracket or backslash carries over). */
  let lineStart = true;
  /** The current statement is a decorator run still waiting for its `def` or `class`. */
  let decorators = false;
  /** The current logical line is that of a simple statement written at column 0, where a `;` starts another. */
  let simpleLine = false;
  /** The current logical line starts with `match`, which may head either kind of statement. */
  let matchLine = false;
  /** The current statement may have an indented block (a compound statement, or `match`). */
  let block = false;
  // A byte order mark is no statement's first character.
  let i = text.charCodeAt(0) === BYTE_ORDER_MARK ? 1 : 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (lineStart) {
      lineStart = false;
      if (c === SPACE || c === TAB) {
        // An indented line belongs to the statement above, but for a comment below a simple statement (or none).
        if (!block && !decorators && text.charCodeAt(skipIndent(text, i)) === HASH) starts.push(skipIndent(text, i));
        simpleLine = matchLine = false;
      } else if (c < SPACE && c !== NEWLINE && c !== RETURN) {
        return undefined; // a form feed or another control character: tree-sitter's idea of it is not this reading's
      } else if (c === HASH) {
        // A comment in column 0 inside a compound statement stays in it when indented code or a clause follows.
        if (!decorators && !(block && continuesStatement(text, i))) {
          starts.push(i);
          block = false;
        }
        simpleLine = matchLine = false;
      } else if (c !== NEWLINE && c !== RETURN) {
        const head = c === AT ? Head.Other : headAt(text, i);
        matchLine = head === Head.Match;
        if (head === Head.Clause) {
          simpleLine = false;
        } else if (decorators && c !== AT) {
          decorators = simpleLine = false; // the decorated `def` or `class`
        } else {
          if (!decorators) starts.push(i);
          decorators = c === AT;
          simpleLine = !decorators && head === Head.Other;
          block = !simpleLine;
        }
      }
    }
    i = nextSpecial(text, i);
    if (i >= n) break;
    const s = text.charCodeAt(i);
    if (s === NEWLINE) {
      lineStart = depth === 0;
      i++;
    } else if (s === QUOTE2 || s === QUOTE1) {
      const end = skipString(text, i);
      const format = isFormatString(text, i);
      if (end < 0 || (format && !fStringEndsAt(text, i, end))) return undefined;
      noteString(i, end, format);
      i = end;
    } else if (s === HASH) {
      // A comment after a simple statement at column 0 is a statement of the module's in the tree.
      if (simpleLine && depth === 0) starts.push(i);
      const nl = text.indexOf('\n', i);
      const lineEnd = nl < 0 ? n : nl;
      noteComment(i, lineEnd);
      i = lineEnd;
    } else if (s === BACKSLASH) {
      // A backslash before the line's end carries the logical line on; elsewhere it is inside a token.
      i += text.charCodeAt(i + 1) === RETURN ? 3 : 2;
    } else if (s === RETURN && text.charCodeAt(i + 1) !== NEWLINE) {
      return undefined; // a lone carriage return ends a line for Python
    } else if (s === SEMICOLON && depth === 0 && (simpleLine || matchLine)) {
      if (matchLine) return undefined;
      let j = i + 1;
      while (j < n && (text.charCodeAt(j) === SPACE || text.charCodeAt(j) === TAB)) j++;
      const next = text.charCodeAt(j);
      if (j < n && next !== NEWLINE && next !== RETURN && next !== HASH && next !== BACKSLASH) starts.push(j);
      i = j;
    } else {
      if (s === 40 || s === 91 || s === 123) {
        openBrackets[depth++] = i;
      } else if (s === 41 || s === 93 || s === 125) {
        if (--depth < 0) return undefined;
        noteBracket(openBrackets[depth]!, i);
      }
      i++;
    }
  }
  if (depth === 0) completeMap(text);
  return starts;
}

/** The opening brackets the layout is inside, by depth: one array for every file, written before it is read. */
const openBrackets: number[] = [];

/** Characters the layout reads: line ends, quotes, `#`, brackets, `\\` and `;`. */
const SPECIAL = new Uint8Array(128);
for (const ch of '\n\r"\'#()[]{}\\;') SPECIAL[ch.charCodeAt(0)] = 1;

/** The first offset from `at` holding a character the layout reads, or the text's length. */
function nextSpecial(text: string, at: number): number {
  const n = text.length;
  let i = at;
  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 128 && SPECIAL[c] === 1) return i;
  }
  return i;
}

/** Past the spaces and tabs at `at`. */
export function skipIndent(text: string, at: number): number {
  let i = at;
  for (let c = text.charCodeAt(i); c === SPACE || c === TAB; c = text.charCodeAt(++i));
  return i;
}

/**
 * Whether the first line of code after the comment line at `at` (past blank
 * and comment lines) is indented or a continuing clause: the comment then
 * sits inside the compound statement above.
 */
function continuesStatement(text: string, at: number): boolean {
  for (let nl = text.indexOf('\n', at); nl >= 0; nl = text.indexOf('\n', nl + 1)) {
    const first = skipIndent(text, nl + 1);
    const c = text.charCodeAt(first);
    if (c === NEWLINE || c === RETURN || c === HASH) continue; // a blank or comment line
    if (Number.isNaN(c)) return false; // the end of the file
    if (first > nl + 1) return true;
    return headAt(text, first) === Head.Clause;
  }
  return false;
}
