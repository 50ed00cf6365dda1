/**
 * Reads a template function: its parameters and what its yields say (prompt,
 * result shape, keys read from the actor's result). Nested functions,
 * lambdas and classes are skipped: their yields belong to someone else.
 *
 * Candidates are found in the source text (`yield`, `x[...]`, `x.get(...)`)
 * and each one is confirmed as code, so a `yield` in a string or a comment
 * never counts: in a file without syntax errors by reading the text
 * (CodeReader, one pass per body), else, and wherever that reading is unsure
 * (f-strings, whose fields are code) or a yield may sit in a loop or a
 * nested scope, on the syntax tree. Values are read with the scanner of
 * pyScan.ts.
 */
import { BoundedCache } from './boundedCache';
import { fitted } from './fitted';
import type { BodyFacts, FirstYield, Range, ResultShape, TemplateParam } from './facts';
import { intern, internDotted, ownString } from './intern';
import type { LineMap } from './lines';
import {
  CodeReader,
  expressionEnd,
  findTopLevel,
  matchBracket,
  skipString,
  splitTopLevel,
  stringPrefixLength,
  trimEnd,
  trimStart,
  type Span,
} from './pyScan';
import { isNonNumericLiteral, isNumberLiteral, literalString } from './syntax';
import type { ModuleRoot } from './moduleTree';
import type { SyntaxNode } from './treeSitter';

const LOOPS = new Set([
  'for_statement',
  'while_statement',
  'list_comprehension',
  'generator_expression',
  'set_comprehension',
  'dictionary_comprehension',
]);
const SCOPES = new Set(['function_definition', 'lambda', 'class_definition']);
const YIELD = /\byield\b/g;
/** Words that can put a yield in a loop or another scope; without them no climbing in the tree is needed. */
const NESTING = /\b(?:for|while|def|lambda|class)\b/g;
const STRINGS = /("""|'''|"|')(?:\\.|(?!\1)[^\\])*\1/g;

/**
 * Whether a word of NESTING is written as code in the body [from, to).
 * Strings and comments may say "for" or "class": in a file without errors
 * each occurrence is asked of a CodeReader; where the reader is unsure (an
 * f-string), or the file has errors, the body's strings are blanked out and
 * the text searched again.
 */
function mayNest(text: string, from: number, to: number, errorFree: boolean): boolean {
  const reader = errorFree ? new CodeReader(text, from) : undefined;
  NESTING.lastIndex = from;
  for (let m = NESTING.exec(text); m && m.index < to; m = NESTING.exec(text)) {
    const inCode = reader?.isCode(m.index);
    if (inCode === true) return true;
    if (inCode === undefined) {
      const blanked = text.slice(from, to).replace(STRINGS, '""');
      NESTING.lastIndex = 0;
      return NESTING.test(blanked);
    }
  }
  return false;
}

/** Where a yield sits relative to its template, found by climbing the tree to the `def`. */
function placeOf(node: SyntaxNode, defStart: number): { own: boolean; inLoop: boolean } {
  let inLoop = false;
  for (let n = node.parent; n; n = n.parent) {
    const type = n.type;
    if (type === 'function_definition' && n.startIndex === defStart) return { own: true, inLoop };
    if (SCOPES.has(type)) return { own: false, inLoop };
    if (LOOPS.has(type)) inLoop = true;
  }
  return { own: false, inLoop };
}

/**
 * `errorFree`: the parser found no error in the file, so its strings can be
 * told from code by reading the text (CodeReader) instead of asking the
 * tree at each candidate. The facts are written into `into` (the
 * template's own object), which is returned: spreading a separate object
 * into the template cost more than reading the yields.
 */
export function readBody<T extends object>(
  root: ModuleRoot,
  text: string,
  lines: LineMap,
  def: Span,
  bodyFrom: number,
  errorFree: boolean,
  into: T,
): T & BodyFacts {
  const nested = mayNest(text, bodyFrom, def.end, errorFree);
  const yields: number[] = [];
  let yieldInLoop = false;
  // A yield in a nested scope or a loop is placed by climbing the tree, so only other bodies are read as text.
  const reader = errorFree && !nested ? new CodeReader(text, bodyFrom) : undefined;
  YIELD.lastIndex = bodyFrom;
  for (let m = YIELD.exec(text); m && m.index < def.end; m = YIELD.exec(text)) {
    const inCode = reader?.isCode(m.index);
    if (inCode === false) continue; // inside a string or comment
    if (inCode === true) {
      yields.push(m.index);
      continue;
    }
    const keyword = root.descendantForIndex(m.index, m.index + 5);
    if (keyword?.type !== 'yield') continue; // inside a string or comment
    if (nested) {
      const expr = keyword.parent;
      if (!expr) continue;
      const place = placeOf(expr, def.start);
      if (!place.own) continue;
      yieldInLoop ||= place.inLoop;
    }
    yields.push(m.index);
  }
  const facts = into as T & BodyFacts;
  facts.yieldCount = yields.length;
  facts.yieldInLoop = yieldInLoop;
  facts.readsKeys = NO_KEYS;
  for (const at of yields) {
    const call = yieldedCall(text, at, def.end);
    if (call)
      (facts.unawaitedCalls ??= []).push({
        callee: call.callee,
        range: lines.rangeAt(call.start, call.start + call.length),
      });
  }
  const first = yields[0];
  if (first !== undefined) {
    const value = valueOf(text, first, def.end);
    facts.firstYield = classifyPrompt(text, value);
    facts.firstYieldRange = lines.rangeAt(first, value?.end ?? first + 5);
    const bound = boundVariable(text, first);
    if (bound) facts.readsKeys = keyReads(root, text, lines, first, def.end, bound, errorFree);
  }
  const second = yields[1];
  if (second !== undefined) facts.result = resultShape(text, lines, second, def.end);
  return facts;
}

/** The keys read by a body that reads none: one array for all of them (fitted.ts says why it is not frozen). */
const NO_KEYS = fitted<BodyFacts['readsKeys'][number]>([]);

const YIELDED_CALL = /([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*)\s*\(/y;

/** `yield f(...)` (not `yield await f(...)`): the called name and where the call's head starts. */
function yieldedCall(
  text: string,
  yieldAt: number,
  limit: number,
): { callee: readonly string[]; start: number; length: number } | undefined {
  const start = trimStart(text, yieldAt + 5, limit);
  YIELDED_CALL.lastIndex = start;
  const m = YIELDED_CALL.exec(text);
  if (!m || m[1] === 'await' || start + m[0].length > limit) return undefined;
  return { callee: internDotted(m[1]!), start, length: m[1]!.length };
}

/** The expression after `yield` (undefined for a bare `yield`). */
function valueOf(text: string, yieldAt: number, limit: number): Span | undefined {
  const start = trimStart(text, yieldAt + 5, limit);
  const c = text[start];
  if (c === undefined || c === '\n' || c === '#' || c === ')' || c === ']' || c === '}' || c === ';' || c === ',')
    return undefined;
  if (text.startsWith('from', start) && /\s/.test(text[start + 4] ?? '')) return undefined;
  const end = expressionEnd(text, start, limit);
  return end > start ? { start, end } : undefined;
}

/** `x = yield ...` binds x to what the first yield returns (the actor's answer/result). */
function boundVariable(text: string, yieldAt: number): string | undefined {
  const before = text.slice(Math.max(0, yieldAt - 80), yieldAt);
  return /(?:^|[\n;])\s*([A-Za-z_]\w*)\s*(?::[^=\n]*)?=\s*\(?\s*$/.exec(before)?.[1];
}

/** The value of a literal (or implicitly concatenated literals, maybe parenthesized) in `span`. */
function literalIn(text: string, span: Span): string | undefined {
  let { start, end } = span;
  if (text[start] === '(' && matchBracket(text, start, end) === end - 1) {
    start = trimStart(text, start + 1, end - 1);
    end = trimEnd(text, start, end - 1);
  }
  let out = '';
  let i = start;
  while (i < end) {
    const prefix = stringPrefixLength(text, i);
    if (prefix < 0) return undefined;
    const close = skipString(text, i + prefix);
    if (close < 0 || close > end) return undefined;
    const v = literalString(text.slice(i, close));
    if (v === undefined) return undefined;
    out += v;
    i = close;
    // whitespace, newlines and comments between the parts
    for (;;) {
      i = trimStart(text, i, end);
      if (text[i] !== '#') break;
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? end : nl;
    }
  }
  return out;
}

function dictEntries(text: string, span: Span): { key: string | undefined; value: Span }[] | undefined {
  if (text[span.start] !== '{' || matchBracket(text, span.start, span.end) !== span.end - 1) return undefined;
  const out: { key: string | undefined; value: Span }[] = [];
  for (const item of splitTopLevel(text, span.start + 1, span.end - 1)) {
    const colon = findTopLevel(text, item.start, item.end, ':');
    if (text.startsWith('**', item.start) || colon < 0) {
      out.push({ key: undefined, value: item });
      continue;
    }
    const value = { start: trimStart(text, colon + 1, item.end), end: item.end };
    const valueText = text.slice(value.start, value.end);
    if (valueText.includes('for') && /\bfor\b/.test(valueText) && /\bin\b/.test(valueText)) return undefined; // a comprehension
    const key = literalIn(text, { start: item.start, end: trimEnd(text, item.start, colon) });
    out.push({ key: key === undefined ? undefined : intern(key), value });
  }
  return out;
}

function classifyPrompt(text: string, value: Span | undefined): FirstYield {
  if (!value) return { kind: 'empty' };
  const source = text.slice(value.start, value.end);
  if (source === 'None') return { kind: 'empty' };
  const literal = literalIn(text, value);
  if (literal !== undefined) return literal === '' ? { kind: 'empty' } : { kind: 'literal', text: literal };
  const prompt = dictEntries(text, value)?.find((e) => e.key === 'prompt');
  if (prompt) {
    const p = literalIn(text, prompt.value);
    if (p !== undefined) return p === '' ? { kind: 'empty' } : { kind: 'literal', text: p };
  }
  return { kind: 'other' };
}

function resultShape(text: string, lines: LineMap, yieldAt: number, limit: number): ResultShape {
  const value = valueOf(text, yieldAt, limit);
  const range = lines.rangeAt(yieldAt, value?.end ?? yieldAt + 5);
  if (!value) return { range };
  const source = text.slice(value.start, value.end);
  if (isNumberLiteral(source)) return { keys: ['score'], range };
  const entries = dictEntries(text, value);
  if (!entries) return { range };
  const complete = entries.every((e) => e.key !== undefined);
  const keys = fitted(entries.map((e) => e.key).filter((k): k is string => k !== undefined));
  const shape: ResultShape = complete ? { keys, range } : { range };
  const score = entries.find((e) => e.key === 'score');
  if (!score && complete) shape.scoreProblem = 'missing';
  else if (score && isNonNumericLiteral(text.slice(score.value.start, score.value.end)))
    shape.scoreProblem = 'not-numeric';
  return shape;
}

/** One pattern per variable name: templates mostly call it `actor_result` or `result`. */
const keyReadPatterns = new BoundedCache<string, RegExp>(256);

function keyReadPattern(bound: string): RegExp {
  return (
    keyReadPatterns.get(bound) ??
    // A copied key: `bound` is cut from the file's text and would keep it alive (intern.ts).
    keyReadPatterns.add(
      ownString(bound),
      new RegExp(`\\b${bound}\\s*(?:\\[|\\.\\s*get\\s*\\()\\s*(?=[rRuU]?["'])`, 'g'),
    )
  );
}

/** `bound["key"]` and `bound.get("key")` between `from` and `to`. */
function keyReads(
  root: ModuleRoot,
  text: string,
  lines: LineMap,
  from: number,
  to: number,
  bound: string,
  errorFree: boolean,
): { key: string; range: Range }[] {
  const out: { key: string; range: Range }[] = [];
  const reader = errorFree ? new CodeReader(text, from) : undefined;
  const re = keyReadPattern(bound);
  re.lastIndex = from;
  for (let m = re.exec(text); m && m.index < to; m = re.exec(text)) {
    if (m.index > 0 && text[m.index - 1] === '.') continue; // `other.bound[...]`
    const keyAt = m.index + m[0].length;
    // The key's string must open in code: `bound` may sit in a string or a comment.
    const inCode = reader?.isCode(keyAt) ?? root.descendantForIndex(keyAt, keyAt + 1)?.type === 'string_start';
    if (!inCode) continue;
    const quoteAt = /^[rRuU]?/.exec(text.slice(keyAt, keyAt + 1))![0].length + keyAt;
    const close = skipString(text, quoteAt);
    const key = close > 0 ? literalString(text.slice(keyAt, close)) : undefined;
    if (key !== undefined) out.push({ key: intern(key), range: lines.rangeAt(keyAt, close) });
  }
  return fitted(out);
}

/**
 * Parameter lists read before, by their text: templates repeat their
 * signatures from file to file (`level: int = 1`), and each list cost one
 * array and an object per parameter kept for as long as the file is
 * indexed. A shared list is read-only by its type and its parameters are
 * frozen, like the positions and ranges they sit beside (lines.ts); the
 * list itself is not (fitted.ts says why). A cache that starts again when full.
 */
const paramLists = new BoundedCache<string, readonly TemplateParam[]>(20_000);

/** Parameters of `def f(<from..to>)`. */
export function readParams(text: string, from: number, to: number): readonly TemplateParam[] {
  const source = text.slice(from, to);
  const known = paramLists.get(source);
  if (known !== undefined) return known;
  const parsed = parseParams(text, from, to);
  for (const p of parsed) Object.freeze(p);
  // The key would otherwise keep the whole file's text alive (intern.ts).
  return paramLists.add(ownString(source), fitted(parsed));
}

function parseParams(text: string, from: number, to: number): TemplateParam[] {
  const out: TemplateParam[] = [];
  let keywordOnly = false;
  for (const p of splitTopLevel(text, from, to)) {
    const source = text.slice(p.start, p.end);
    if (source === '/') continue;
    if (source === '*') {
      keywordOnly = true;
      continue;
    }
    const stars = /^\*{0,2}/.exec(source)![0];
    const eq = findTopLevel(text, p.start, p.end, '=');
    const colon = findTopLevel(text, p.start, eq < 0 ? p.end : eq, ':');
    const nameEnd = colon >= 0 ? colon : eq >= 0 ? eq : p.end;
    const name = intern(text.slice(p.start + stars.length, nameEnd).trim());
    if (!/^[A-Za-z_]\w*$/.test(name)) continue;
    const kind = stars === '*' ? 'varargs' : stars === '**' ? 'varkw' : keywordOnly ? 'keyword' : 'positional';
    const annotation = colon >= 0 ? intern(text.slice(colon + 1, eq >= 0 ? eq : p.end).trim()) : undefined;
    const dflt = eq >= 0 ? intern(text.slice(eq + 1, p.end).trim()) : undefined;
    // Every field in the literal: one added later goes to a separate property store.
    const param: TemplateParam =
      annotation === undefined
        ? dflt === undefined
          ? { name, kind }
          : { name, kind, default: dflt }
        : dflt === undefined
          ? { name, kind, annotation }
          : { name, kind, annotation, default: dflt };
    if (stars === '*') keywordOnly = true;
    out.push(param);
  }
  return out;
}
