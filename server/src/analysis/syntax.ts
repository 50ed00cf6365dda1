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

const STRING_START = /^([rRbBuUfF]{0,2})("""|'''|"|')/;
const ESCAPES: Record<string, string> = {
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
  const m = STRING_START.exec(source);
  if (!m) return undefined;
  const prefix = m[1]!.toLowerCase();
  const quote = m[2]!;
  const raw = prefix.includes('r');
  const bodyEnd = source.length - quote.length;
  if (bodyEnd < m[0].length || !source.endsWith(quote)) return undefined;
  const isF = prefix.includes('f');
  const q = quote.charCodeAt(0);
  // Copies runs of plain characters at once: one string per run rather than one per character.
  let out = '';
  let run = m[0].length;
  for (let i = run; i < bodyEnd; i++) {
    const c = source.charCodeAt(i);
    if (c === BACKSLASH) {
      const next = source[i + 1] ?? '';
      out += source.slice(run, i) + (raw ? '\\' + next : (ESCAPES[next] ?? '\\' + next));
      i++;
      run = i + 1;
      continue;
    }
    if (c === q && source.startsWith(quote, i)) return undefined; // the literal ended early: `"a" "b"`, `"a" + x`
    if (isF && (c === OPEN_BRACE || c === CLOSE_BRACE)) return undefined;
  }
  return ownString(run < bodyEnd ? out + source.slice(run, bodyEnd) : out);
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
