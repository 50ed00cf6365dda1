/**
 * Whether a mention of a module-level name only reads it, asked of the
 * syntax tree. A name bound to a value nothing can change in place (an
 * integer, a range, a tuple of literals) keeps that value past such a
 * mention (`HALF = N // 2`, `if n < N`, `print(N)`, a comment): only binding
 * it again could change it. The index asks this of the few names it knows
 * the value of (knownValues.ts).
 *
 * The places listed below are expressions, whose names Python only reads.
 * Anything else counts as a possible binding: an assignment's or a loop's
 * target however it is written (`(N) = 5`, `[a, N] = pair`), `global N`,
 * `del N`, an import, a parameter, and a string (`globals()["N"] = 5`).
 */
import type { SyntaxNode } from './treeSitter';

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
export function inComment(root: SyntaxNode, at: number): boolean {
  return root.descendantForIndex(at, at + 1)?.type === 'comment';
}

/**
 * Whether the name written at [at, end) is a word of a string's text that
 * says more than the name: prose (`"a level in range 1-3"`) binds nothing,
 * while a string of the name alone may (`globals()["range"] = ...`).
 */
export function inProse(root: SyntaxNode, at: number, end: number): boolean {
  const node = root.descendantForIndex(at, end);
  return node?.type === 'string_content' && (node.startIndex !== at || node.endIndex !== end);
}

/** `root`: the module's tree; [at, end): where the name is written. */
export function readsOnly(root: SyntaxNode, at: number, end: number): boolean {
  if (root.hasError) return false;
  const node = root.descendantForIndex(at, end);
  if (!node) return false;
  if (node.type === 'comment') return true;
  if (node.type !== 'identifier' || node.startIndex !== at || node.endIndex !== end) return false;
  const parent = node.parent;
  if (!parent) return false;
  if (READING_PARENTS.has(parent.type)) return true;
  const field = READING_FIELDS[parent.type];
  // `f(N=1)` names a parameter, `obj.N` an attribute: neither is the module's name.
  if (parent.type === 'keyword_argument' && parent.childForFieldName('name')?.id === node.id) return true;
  if (parent.type === 'attribute' && parent.childForFieldName('attribute')?.id === node.id) return true;
  return field !== undefined && parent.childForFieldName(field)?.id === node.id;
}
