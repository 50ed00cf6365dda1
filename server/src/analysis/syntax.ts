/**
 * Small readers over tree-sitter-python nodes.
 *
 * Positions: web-tree-sitter is fed the document as a JS string, so its
 * indices and columns are UTF-16 code units, exactly like LSP positions
 * (tested with emoji and accented text): no conversion, only a rename.
 *
 * Cost: a node's start index and start position are free in web-tree-sitter,
 * every other property is a call into wasm, so readers work on the source
 * string wherever they can.
 */
import type { Range } from './facts';
import { ownString, intern } from './intern';
import { positionOf, sharedRange } from './lines';
import { stringPrefixLength } from './pyScan';
import type { SyntaxNode } from './treeSitter';

export function rangeOf(node: SyntaxNode): Range {
  const s = node.startPosition;
  const e = node.endPosition;
  return sharedRange(positionOf(s.row, s.column), positionOf(e.row, e.column));
}

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;

/** The identifier starting at `at` in `text` ('' if none). */
export function identifierAt(text: string, at: number): string {
  IDENT.lastIndex = at;
  const m = IDENT.exec(text);
  return m ? intern(m[0]) : '';
}

/** What a backslash and the character after it stand for in a string that is not raw (the rest stay as written). */
export const ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '0': '\0',
  '\n': '',
};

/**
 * The value of one plain string literal written in `source`, else undefined
 * (f-strings with interpolation, implicit concatenation, anything else).
 */
export function literalString(source: string): string | undefined {
  const prefixLength = stringPrefixLength(source, 0);
  if (prefixLength < 0) return undefined;
  const q = source.charCodeAt(prefixLength);
  const quoteLength = source.charCodeAt(prefixLength + 1) === q && source.charCodeAt(prefixLength + 2) === q ? 3 : 1;
  // Prefix letters by their lower-case code: r 0x72, f 0x66.
  const p0 = prefixLength > 0 ? source.charCodeAt(0) | 0x20 : 0;
  const p1 = prefixLength > 1 ? source.charCodeAt(1) | 0x20 : 0;
  const raw = p0 === 0x72 || p1 === 0x72;
  const isF = p0 === 0x66 || p1 === 0x66;
  const opened = prefixLength + quoteLength;
  const bodyEnd = source.length - quoteLength;
  if (bodyEnd < opened || !endsWithQuote(source, q, quoteLength)) return undefined;
  const quote = quoteLength === 3 ? source.slice(prefixLength, opened) : '';
  // Copies runs of plain characters at once: one string per run rather than one per character.
  let out = '';
  let run = opened;
  for (let i = run; i < bodyEnd; i++) {
    const c = source.charCodeAt(i);
    if (c === BACKSLASH) {
      const next = source[i + 1] ?? '';
      out += source.slice(run, i) + (raw ? '\\' + next : (ESCAPES[next] ?? '\\' + next));
      i++;
      run = i + 1;
      continue;
    }
    // the literal ended early: `"a" "b"`, `"a" + x`
    if (c === q && (quoteLength === 1 || source.startsWith(quote, i))) return undefined;
    if (isF && (c === OPEN_BRACE || c === CLOSE_BRACE)) return undefined;
  }
  return ownString(run < bodyEnd ? out + source.slice(run, bodyEnd) : out);
}

/** Whether `source` ends with `length` (1 or 3) quotes `q`. */
function endsWithQuote(source: string, q: number, length: number): boolean {
  const n = source.length;
  if (source.charCodeAt(n - 1) !== q) return false;
  return length === 1 || (source.charCodeAt(n - 2) === q && source.charCodeAt(n - 3) === q);
}

const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;

/** The value of a string literal node (including implicit concatenation), else undefined. */
export function stringValue(node: SyntaxNode, text: string): string | undefined {
  const source = text.slice(node.startIndex, node.endIndex);
  const fast = literalString(source);
  if (fast !== undefined) return fast;
  if (!/^[rRbBuUfF]{0,2}["']/.test(source) && !source.startsWith('(')) return undefined;
  const type = node.type;
  if (type === 'parenthesized_expression') {
    const inner = node.firstNamedChild;
    return inner ? stringValue(inner, text) : undefined;
  }
  if (type !== 'concatenated_string') return undefined;
  let out = '';
  for (const part of node.namedChildren) {
    if (!part || part.type === 'comment') continue;
    const v = stringValue(part, text);
    if (v === undefined) return undefined;
    out += v;
  }
  return out;
}

const NUMBER = /^-?\s*(?:\d[\d_]*\.?[\d_]*(?:[eE][+-]?\d+)?|\.\d[\d_]*(?:[eE][+-]?\d+)?)$/;

export function isNumberLiteral(source: string): boolean {
  return NUMBER.test(source);
}

/** Literal kinds that can never be a numeric score. */
export function isNonNumericLiteral(source: string): boolean {
  return /^(?:[rRbBuUfF]{0,2}["']|None$|\[|\{|\(\s*\))/.test(source);
}
