/**
 * Why Python could not import a module at all, found before anything runs:
 * a syntax error, a NUL byte, bytes that are not UTF-8, or brackets and
 * indentation nested deeper than CPython's tokenizer accepts (200 levels of
 * brackets, 100 of indentation). `run` would fail on the same file while
 * loading it; `check` and the editor say so first (docs/reliability.md).
 */
import { isUtf8 } from 'node:buffer';
import { decodeText } from './analyzer';
import { problem } from './diagnostics';
import type { FileProblem, Range } from './facts';
import { LineMap } from './lines';
import type { Parser, SyntaxNode } from './treeSitter';

/** CPython's tokenizer limits (MAXLEVEL, MAXINDENT). */
export const MAX_BRACKET_NESTING = 200;
export const MAX_INDENT_LEVELS = 100;

const FIX = 'fix it so that `python3 -c "import ast; ast.parse(open(FILE).read())"` succeeds';

/**
 * The reasons a module's bytes cannot be imported. Run by `check` on the
 * modules it reports about, not on every keystroke: the scan is linear but
 * the editor's index stays at the cost of the parse alone.
 */
export function importProblems(bytes: Uint8Array, parser: Parser): FileProblem[] {
  const text = decodeText(bytes);
  const lines = new LineMap(text);
  const tree = parser.parse(text);
  try {
    const found = tree ? unimportableProblems(tree.rootNode, text, lines) : [];
    return isUtf8(bytes) ? found : [notUtf8Problem(text, lines), ...found];
  } finally {
    tree?.delete();
  }
}

export function unimportableProblems(root: SyntaxNode, text: string, lines: LineMap): FileProblem[] {
  const out: FileProblem[] = [];
  const at = (offset: number): Range => {
    const p = lines.positionAt(offset);
    return { start: p, end: { line: p.line, character: p.character + 1 } };
  };
  const nul = text.indexOf('\0');
  if (nul >= 0)
    out.push(
      problem(
        'python-unimportable',
        at(nul),
        `this file holds a NUL byte, so Python cannot import it (fix: remove the NUL byte)`,
      ),
    );
  const deep = tooDeep(text);
  if (deep)
    out.push(
      problem(
        'python-unimportable',
        at(deep.offset),
        `${deep.what}, so Python cannot import this file (fix: flatten it)`,
      ),
    );
  if (root.hasError && !out.length) {
    const bad = firstError(root);
    const where = bad ? at(bad.startIndex) : at(0);
    const what = bad?.isMissing ? `syntax error: "${bad.type}" is missing here` : 'syntax error';
    out.push(problem('python-unimportable', where, `${what}, so Python cannot import this file (${FIX})`));
  }
  return out;
}

/** The problem for file bytes that are not UTF-8 (the text was decoded with replacement characters). */
export function notUtf8Problem(text: string, lines: LineMap): FileProblem {
  const bad = Math.max(0, text.indexOf('\ufffd'));
  const p = lines.positionAt(bad);
  return problem(
    'python-unimportable',
    { start: p, end: { line: p.line, character: p.character + 1 } },
    'this file is not valid UTF-8, so Python cannot import it (fix: save it as UTF-8)',
  );
}

/** The first ERROR or MISSING node in document order, without recursion. */
function firstError(root: SyntaxNode): SyntaxNode | undefined {
  let node: SyntaxNode | null = root;
  while (node) {
    if (node.type === 'ERROR' || node.isMissing) return node;
    let next: SyntaxNode | null = null;
    for (const child of node.children) {
      if (child && (child.hasError || child.type === 'ERROR' || child.isMissing)) {
        next = child;
        break;
      }
    }
    node = next;
  }
  return undefined;
}

/** Bracket or indentation nesting past CPython's limits, skipping strings and comments. */
function tooDeep(text: string): { offset: number; what: string } | undefined {
  let depth = 0;
  let quote = '';
  const indents: number[] = [0];
  let lineStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\n' && quote.length === 1) {
        quote = ''; // an unterminated one-line string: the syntax check reports it
        lineStart = true;
      } else if (c === '\\') i++;
      else if (text.startsWith(quote, i)) {
        i += quote.length - 1;
        quote = '';
      }
      continue;
    }
    if (lineStart && depth === 0) {
      let width = 0;
      while (text[i] === ' ' || text[i] === '\t') {
        width += text[i] === '\t' ? 8 - (width % 8) : 1;
        i++;
      }
      lineStart = false;
      const ch = text[i];
      if (ch !== '\n' && ch !== '#' && ch !== '\r' && ch !== undefined) {
        if (width > indents[indents.length - 1]!) indents.push(width);
        else while (indents.length > 1 && width < indents[indents.length - 1]!) indents.pop();
        if (indents.length - 1 >= MAX_INDENT_LEVELS)
          return { offset: i, what: `indentation nests ${MAX_INDENT_LEVELS} levels deep` };
      }
      i--;
      continue;
    }
    if (c === '\n') lineStart = true;
    else if (c === '\\' && text[i + 1] === '\n') i++;
    else if (c === '#') while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    else if (c === '"' || c === "'") quote = text.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
    else if (c === '(' || c === '[' || c === '{') {
      if (++depth >= MAX_BRACKET_NESTING)
        return { offset: i, what: `brackets nest ${MAX_BRACKET_NESTING} levels deep` };
    } else if (c === ')' || c === ']' || c === '}') depth = Math.max(0, depth - 1);
  }
  return undefined;
}
