/**
 * What a mention of a module-level name does, asked of the syntax tree:
 * whether it only reads the name (readsOnly), is no mention at all (a
 * comment, prose in a string), leaves a list as it was (leavesListAlone)
 * or the items of what it holds (leavesItemsAlone), or hands the value to
 * something that may keep it (storesValue), and to what (keptIn; for
 * every name of a statement, forEachKept, which settles most of them from
 * the text map instead).
 *
 * A name bound to a value nothing can change in place (an integer, a
 * range, a tuple of literals) keeps that value past a mention that only
 * reads it (`HALF = N // 2`, `if n < N`, `print(N)`, a comment): only binding
 * it again could change it. The index asks this of the few names it knows
 * the value of (knownValues.ts).
 *
 * The places listed below are expressions, whose names Python only reads.
 * Anything else counts as a possible binding: an assignment's or a loop's
 * target however it is written (`(N) = 5`, `[a, N] = pair`), `global N`,
 * `del N`, an import, a parameter, and a string (`globals()["N"] = 5`).
 */
import { isSpaceCode, isWordCode } from './pyScan';
import { Kind, mapOf } from './textMap';
import type { ModuleRoot } from './moduleTree';
import type { SyntaxNode } from './treeSitter';
import { forEachAsciiName } from './writtenNames';

/** Parents whose every child is an expression read where it stands. */
const READING_PARENTS = new Set([
  'binary_operator',
  'comparison_operator',
  'boolean_operator',
  'not_operator',
  'unary_operator',
  'conditional_expression',
  'argument_list',
  'interpolation',
  'slice',
  'if_clause',
  'return_statement',
  'assert_statement',
  'expression_statement',
  'await',
]);

/** Parents of which only the named field is read: `x = N`, `N.real`, `f(k=N)`, `for x in N`, `if N:`. */
const READING_FIELDS: Readonly<Record<string, string>> = {
  assignment: 'right',
  augmented_assignment: 'right',
  attribute: 'object',
  keyword_argument: 'value',
  call: 'function',
  subscript: 'value',
  for_statement: 'right',
  for_in_clause: 'right',
  if_statement: 'condition',
  elif_clause: 'condition',
  while_statement: 'condition',
};

/** Whether the text at `at` is a comment's: a name written there is no mention at all, of a list or of anything. */
export function inComment(root: ModuleRoot, at: number): boolean {
  return root.descendantForIndex(at, at + 1)?.type === 'comment';
}

/**
 * Whether the name written at [at, end) is a word of a string's text that
 * says more than the name: prose (`"a level in range 1-3"`) binds nothing,
 * while a string of the name alone may (`globals()["range"] = ...`).
 */
export function inProse(root: ModuleRoot, at: number, end: number): boolean {
  const node = root.descendantForIndex(at, end);
  return node?.type === 'string_content' && (node.startIndex !== at || node.endIndex !== end);
}

/**
 * The name written at exactly [at, end) and its parent, 'comment' where a
 * comment holds the text, undefined anywhere else or in a tree with errors
 * (where what a node's parent is cannot be trusted).
 */
function nameAt(
  root: ModuleRoot,
  at: number,
  end: number,
): { node: SyntaxNode; parent: SyntaxNode } | 'comment' | undefined {
  if (root.hasError) return undefined;
  const node = root.descendantForIndex(at, end);
  if (!node) return undefined;
  if (node.type === 'comment') return 'comment';
  if (node.type !== 'identifier' || node.startIndex !== at || node.endIndex !== end) return undefined;
  const parent = node.parent;
  return parent ? { node, parent } : undefined;
}

/** `root`: the module's tree; [at, end): where the name is written. */
export function readsOnly(root: ModuleRoot, at: number, end: number): boolean {
  const name = nameAt(root, at, end);
  if (name === undefined || name === 'comment') return name === 'comment';
  const { node, parent } = name;
  if (READING_PARENTS.has(parent.type)) return true;
  const field = READING_FIELDS[parent.type];
  // `f(N=1)` names a parameter, `obj.N` an attribute: neither is the module's name.
  if (parent.type === 'keyword_argument' && parent.childForFieldName('name')?.id === node.id) return true;
  if (parent.type === 'attribute' && parent.childForFieldName('attribute')?.id === node.id) return true;
  return field !== undefined && parent.childForFieldName(field)?.id === node.id;
}

/** Methods of a list that leave it as it was. */
const LIST_QUERIES = new Set(['count', 'index', 'copy']);
/**
 * Parents under which a list's name is only read, and shared with nothing
 * that could change it later; or passed to a call, which the index judges
 * apart (what the callee may do is verifierReach.ts's and the linker's).
 */
const LIST_READING_PARENTS = new Set([
  'expression_statement',
  'binary_operator',
  'comparison_operator',
  'not_operator',
  'interpolation',
  'assert_statement',
  'subscript',
  'for_statement',
  'for_in_clause',
  'if_statement',
  'elif_clause',
  'while_statement',
  'argument_list',
  'keyword_argument',
]);

/**
 * Whether the mention of a list's name at [at, end) leaves the list as it
 * was and gives no other name a hold on it: iterated over, indexed,
 * compared, printed, passed to a call. Binding a name to it (`other =
 * tasks`, `x = tasks or []`), putting it in a display (`{"t": tasks}`), a
 * method other than `count`, `index` and `copy`, or the name in a string
 * (`globals()["tasks"]`) may change its items or their order, now or
 * through that other hold later. Binding the name to something else
 * (`tasks = ...`) leaves the list it held as it was.
 */
export function leavesListAlone(root: ModuleRoot, at: number, end: number): boolean {
  const name = nameAt(root, at, end);
  if (name === undefined || name === 'comment') return name === 'comment';
  const { node, parent } = name;
  if (LIST_READING_PARENTS.has(parent.type)) return true;
  // `tasks = ...`: the name is bound to something else, and the list it held is as it was.
  if (parent.type === 'assignment') return parent.childForFieldName('left')?.id === node.id;
  if (parent.type !== 'attribute') return false;
  const method = parent.childForFieldName('attribute')?.text;
  return method !== undefined && LIST_QUERIES.has(method) && parent.parent?.type === 'call';
}

/** Parents that keep the value of a name written in them: a display, a call's argument, a second name for it. */
const STORING_PARENTS = new Set([
  'tuple',
  'list',
  'set',
  'pair',
  'expression_list',
  'argument_list',
  'keyword_argument',
  'conditional_expression',
  'boolean_operator',
  'return_statement',
  'yield',
  'lambda',
]);

/**
 * Whether the name written at [at, end) hands its value, or an element of
 * it, to something that may keep it (`reg.add(task)`, `{"x": task}`,
 * `other = task`, `reg.add(suite[0])`): a verifier set later through that
 * holder reaches the same Task. Any mention in a file with a syntax error
 * counts.
 */
export function storesValue(root: ModuleRoot, at: number, end: number): boolean {
  if (root.hasError) return true;
  let node = root.descendantForIndex(at, end);
  if (!node || node.type === 'comment' || node.type === 'string_content') return false;
  let parent = node.parent;
  // `(task)`, and `suite[0]`: what is handed on is the value, or an element of it.
  while (
    parent?.type === 'parenthesized_expression' ||
    (parent?.type === 'subscript' && parent.childForFieldName('value')?.id === node.id)
  ) {
    node = parent;
    parent = parent.parent;
  }
  if (!parent) return false;
  if (STORING_PARENTS.has(parent.type)) return true;
  if (parent.type !== 'assignment' && parent.type !== 'augmented_assignment') return false;
  return parent.childForFieldName('right')?.id === node.id;
}

/**
 * Whether the name written at [at, end) only adds at the end of the list
 * it holds (`tasks.append(t)`, `tasks.extend(more)`, `tasks += [t]`): the
 * items it has keep their indexes.
 */
export function growsOnly(root: ModuleRoot, at: number, end: number): boolean {
  const name = nameAt(root, at, end);
  if (name === undefined || name === 'comment') return false;
  const { node, parent } = name;
  if (parent.type === 'augmented_assignment')
    return parent.childForFieldName('left')?.id === node.id && parent.childForFieldName('operator')?.type === '+=';
  const method = parent.type === 'attribute' ? parent.childForFieldName('attribute')?.text : undefined;
  return (method === 'append' || method === 'extend') && parent.parent?.type === 'call';
}

/**
 * The plain function the name written at [at, end) is passed to whole
 * (`drop_first(tasks)`, `drop_first(ts=tasks)`); undefined for anything
 * else, a method (`reg.add(tasks)`) included.
 */
export function passedTo(root: ModuleRoot, at: number, end: number): string | undefined {
  const name = nameAt(root, at, end);
  if (name === undefined || name === 'comment') return undefined;
  let { parent } = name;
  if (parent.type === 'keyword_argument' && parent.childForFieldName('value')?.id === name.node.id)
    parent = parent.parent ?? parent;
  if (parent.type !== 'argument_list' || parent.parent?.type !== 'call') return undefined;
  const callee = parent.parent.childForFieldName('function');
  return callee?.type === 'identifier' ? callee.text : undefined;
}

/**
 * Whether the name written at [at, end) leaves the items of what it holds
 * alone: a method called on it whose result is dropped (`pair.append(x)`,
 * `pair.pop()` as a statement), `pair += ...`, binding it to something
 * else (`pair = ...`), or deleting it (`del pair`). A container holding a
 * list whole (listTracking.ts, listHolders) does not reach that list this
 * way.
 */
export function leavesItemsAlone(root: ModuleRoot, at: number, end: number): boolean {
  const name = nameAt(root, at, end);
  if (name === undefined || name === 'comment') return name === 'comment';
  const { node, parent } = name;
  if (parent.type === 'augmented_assignment' || parent.type === 'assignment')
    return parent.childForFieldName('left')?.id === node.id;
  if (parent.type === 'delete_statement' || parent.parent?.type === 'delete_statement') return true;
  return (
    parent.type === 'attribute' &&
    parent.childForFieldName('object')?.id === node.id &&
    parent.parent?.type === 'call' &&
    parent.parent.parent?.type === 'expression_statement'
  );
}

/**
 * The names that the name written at [at, end) is put into, when it is
 * (verifierReach.ts, holdersOf): the object whose method gets it
 * (`reg.add(task)`, `box["k"].append(task)`), or the target of the
 * assignment whose value holds it (`r = reg`, `box = {"k": task}`,
 * `reg[k] = task`). A plain function's argument (`f(task)`) and a read
 * (`print(reg[0])`, a loop's iterable) put it into nothing followed. Any
 * mention in a file with a syntax error may be put anywhere: undefined.
 */
export function keptIn(root: ModuleRoot, at: number, end: number): readonly string[] | undefined | null {
  if (root.hasError) return undefined;
  let node = root.descendantForIndex(at, end);
  if (!node || node.type === 'comment' || node.type === 'string_content') return null;
  for (let parent = node.parent; parent; node = parent, parent = parent.parent) {
    if (HOLDING_PARENTS.has(parent.type)) continue;
    if (parent.type === 'subscript' && parent.childForFieldName('value')?.id === node.id) continue;
    if (parent.type === 'argument_list') {
      const callee = parent.parent?.type === 'call' ? parent.parent.childForFieldName('function') : null;
      if (callee?.type !== 'attribute') return null;
      const object = rootName(callee.childForFieldName('object'));
      return object ? [object] : undefined;
    }
    if (parent.type === 'assignment' || parent.type === 'augmented_assignment') {
      if (parent.childForFieldName('right')?.id !== node.id) return null;
      const targets: string[] = [];
      collectTargets(parent.childForFieldName('left'), targets);
      return targets.length ? targets : undefined;
    }
    return null;
  }
  return null;
}

/**
 * keptIn of each ASCII name of `span` (those forEachAsciiName finds), in
 * order, for the names something may keep (keptIn not null). In an
 * error-free module the text map (textMap.ts) settles most mentions
 * without the tree, each to null as keptIn would: text in a plain string
 * or a comment; a keyword or a number; a name called (`f(`), whose
 * attribute is read (`x.`) or that an operator takes (`x + 1`, `x == y`, `x += 1`); an assignment's
 * or annotation's target outside brackets (`x = ...`, `x: int`); and
 * anything inside the arguments of a call whose callee is not a method
 * (`print(x)`, `f([x, y])`, a `def`'s parameters), where keptIn's walk up
 * from the name ends at the latest. Asking the tree about every name of a
 * module's function bodies took more than the rest of its extraction.
 */
export function forEachKept(
  root: ModuleRoot,
  text: string,
  span: { start: number; end: number },
  visit: (name: string, into: readonly string[] | undefined) => void,
): void {
  const map = root.hasError ? undefined : mapOf(text);
  const kinds = map?.kinds;
  // The open brackets before the current name: PLAIN_CALL, GROUP (a parenthesis that is no plain call), BRACKET.
  const open: number[] = [];
  let scanned = span.start;
  forEachAsciiName(text, span, (name, at) => {
    const end = at + name.length;
    if (kinds) {
      for (; scanned < at; scanned++) {
        if (kinds[scanned] !== Kind.Code) continue;
        const c = text.charCodeAt(scanned);
        if (c === 40 /* ( */) open.push(parenthesisKind(text, scanned, span.start));
        else if (c === 91 /* [ */ || c === 123 /* { */) open.push(BRACKET);
        else if (c === 41 /* ) */ || c === 93 /* ] */ || c === 125 /* } */) open.pop();
      }
      scanned = end;
      if (kinds[at] === Kind.Text || isDigit(text.charCodeAt(at)) || NOT_NAMES.has(name)) return;
      // An f-string's field is code the map does not follow: the tree is asked.
      if (kinds[at] === Kind.Code && settledByText(text, end, span.end, open)) return;
    }
    const into = keptIn(root, at, end);
    if (into !== null) visit(name, into);
  });
}
const isDigit = (code: number) => code >= 48 && code <= 57;
const PLAIN_CALL = 0;
const GROUP = 1;
const BRACKET = 2;

/** Whether what follows a name (ending at `end`), or the bracket it is in, says keptIn gives null. */
function settledByText(text: string, end: number, limit: number, open: readonly number[]): boolean {
  let next = end;
  // Outside brackets a line break ends the statement, unless escaped.
  for (; next < limit; next++) {
    const c = text.charCodeAt(next);
    if (c === 32 || c === 9) continue;
    if (open.length && isSpaceCode(c)) continue;
    if (c === 92 /* \ */ && (text.charCodeAt(next + 1) === 10 || text.charCodeAt(next + 1) === 13)) continue;
    break;
  }
  const c = next < limit ? text.charCodeAt(next) : -1;
  if (c === 40 /* ( */ || c === 46 /* . */ || (c > 0 && OPERATOR.includes(text[next]!))) return true;
  if (c === 61 /* = */) return text.charCodeAt(next + 1) === 61 || !open.length;
  if (c === 58 /* : */ && !open.length) return text.charCodeAt(next + 1) !== 61;
  for (let i = open.length - 1; i >= 0; i--) if (open[i] !== BRACKET) return open[i] === PLAIN_CALL;
  return false;
}
/** Characters after a name that make it an operand: arithmetic, bitwise, comparison (`!=`). */
const OPERATOR = '+-*/%&|^@<>!';

/**
 * What the parenthesis at `at` opens: a call whose callee is a plain name,
 * a call's or subscript's result, or a `def`'s or `class`'s name (PLAIN_CALL);
 * else a method's arguments, a tuple or a parenthesised expression (GROUP).
 */
function parenthesisKind(text: string, at: number, from: number): number {
  const i = lastNonBlank(text, at - 1, from);
  if (i < from) return GROUP;
  const c = text.charCodeAt(i);
  if (c === 41 /* ) */ || c === 93 /* ] */) return PLAIN_CALL;
  if (!isWordCode(c)) return GROUP;
  let start = i;
  while (start > from && isWordCode(text.charCodeAt(start - 1))) start--;
  if (NOT_NAMES.has(text.slice(start, i + 1))) return GROUP;
  // A `.` before the name makes it a method; a line break before it may hide one behind a comment: the tree says.
  const before = lastNonBlank(text, start - 1, from);
  if (before < from) return PLAIN_CALL;
  const b = text.charCodeAt(before);
  return b === 46 /* . */ || b === 10 || b === 13 || b === 92 /* \ */ ? GROUP : PLAIN_CALL;
}

/** The last offset at or before `i` (not before `from`) that holds neither a space nor a tab; line breaks count. */
function lastNonBlank(text: string, i: number, from: number): number {
  while (i >= from && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i--;
  return i;
}

/** Words that are no name a value is kept under: keywords and the constants. */
const NOT_NAMES = new Set(
  (
    'False None True and as assert async await break class continue def del elif else except finally for from ' +
    'global if import in is lambda nonlocal not or pass raise return try while with yield'
  ).split(' '),
);

/** Parents that hold what is written in them: displays, a keyword's value, either side of `a if c else b`. */
const HOLDING_PARENTS = new Set([
  'parenthesized_expression',
  'tuple',
  'list',
  'set',
  'dictionary',
  'pair',
  'expression_list',
  'keyword_argument',
  'conditional_expression',
  'boolean_operator',
  'list_splat',
  'dictionary_splat',
]);

/** The name an attribute or item chain starts from (`box` of `box["k"].items`); null for anything else. */
function rootName(node: SyntaxNode | null): string | null {
  while (node?.type === 'attribute' || node?.type === 'subscript')
    node = node.childForFieldName(node.type === 'attribute' ? 'object' : 'value');
  return node?.type === 'identifier' ? node.text : null;
}

/** The names an assignment's targets start from (`a, b[0] = ...` gives a and b). */
function collectTargets(node: SyntaxNode | null, into: string[]): void {
  if (!node) return;
  const root = rootName(node);
  if (root) into.push(root);
  else for (const child of node.namedChildren) collectTargets(child, into);
}
