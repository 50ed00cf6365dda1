/**
 * What the module-level names bound to a known value hold as the statements
 * are read: a display, a literal `range(...)` or an integer, until a mention
 * may bind the name again or change the value in place. The comprehension
 * and loop readers ask through `knownNames` (comprehension.ts); every
 * question is asked as of the statement `readingAt` names.
 */
import { iterableLength, moduleValue, type KnownNames } from './comprehension';
import { literalArg } from './literalArg';
import { matchBracket, type Span } from './pyScan';
import { emptied } from './pythonModule';
import { inComment, inProse, readsOnly } from './readOnlyMention';
import { evaluate, type ValueScope } from './staticValue';
import type { ModuleRoot } from './moduleTree';
import type { SyntaxNode } from './treeSitter';
import { mentionedIn, mentionsOf } from './writtenNames';

/**
 * Module-level names bound to a display, a literal range or an integer
 * literal: how many items the value has, or which integer it is, and where
 * the binding starts. `lengthBefore` is the statement being read, which
 * such a name is asked about.
 */
const knownValues = new Map<string, KnownValue>();

interface KnownValue {
  at: number;
  count?: number;
  int?: number;
  /** The display or `range(...)` the name is bound to. */
  value?: Span;
  /** Nothing can change the value in place (an integer, a range, a tuple of literals): only binding the name can. */
  immutable: boolean;
  read: ReadSoFar;
}

/**
 * How far the mentions of a known value were read (knownValue): each is
 * asked once, however many statements ask about the name.
 */
interface ReadSoFar {
  /** Every mention before this offset only reads the name. */
  readUpTo: number;
  /** The first mention found that may bind it again. */
  boundAt: number;
}

const readSoFar = (): ReadSoFar => ({ readUpTo: 0, boundAt: Number.POSITIVE_INFINITY });

let lengthBefore = 0;
/** The module's text, whose mentions of a known name knownValue reads. */
let lengthText = '';

/** The syntax tree of the module being read, for the few readers that evaluate an expression (staticValue.ts). */
let moduleRoot: ModuleRoot | undefined;

/** Starts on a module: its text and tree, and no name known yet. */
export function startValues(text: string, root: ModuleRoot): void {
  emptied(knownValues);
  emptied(builtinReads);
  lengthText = text;
  moduleRoot = root;
  runsText = undefined;
  builtinsUnsure = undefined;
}

/** Lets go of the module's text and tree: nothing keeps them past its extraction. */
export function endValues(): void {
  lengthText = '';
  moduleRoot = undefined;
}

/** The statement being read starts at `at`: what a name holds is asked as of there. */
export function readingAt(at: number): void {
  lengthBefore = at;
}

/** Records that the statement at `value.at` binds `name` to a value the index knows. */
export function noteKnownValue(name: string, value: Omit<KnownValue, 'read'>): void {
  knownValues.set(name, { ...value, read: readSoFar() });
}

/**
 * What `name` holds at `lengthBefore`, when it was bound to a known value
 * and named nowhere else before but in a comment, where `reads` says the
 * mention only reads it, or, for a value nothing changes in place, where
 * the tree says so (readOnlyMention.ts: `N // 2`, `print(N)`). Any other
 * occurrence (a rebinding in a block, an `append`, a call that may mutate
 * a list, the name alone in a string) leaves it unknown; prose that names
 * it does not (notAMention).
 */
function knownValue(name: string, reads: (at: number, end: number) => boolean) {
  const known = knownValues.get(name);
  if (!known || known.at >= lengthBefore) return undefined;
  const passes = (at: number, end: number) =>
    at === known.at ||
    reads(at, end) ||
    (known.immutable && moduleRoot !== undefined && readsOnly(moduleRoot, at, end)) ||
    notAMention(at, end);
  return stillHolds(name, known.read, lengthBefore, passes) ? known : undefined;
}

/**
 * Reads the mentions of `name` before `before` that `read` has not read
 * yet (ReadSoFar: each is read once, however often the name is asked
 * about): true when `passes` lets each by, false, noting where, at the
 * first that may bind the name again.
 */
function stillHolds(
  name: string,
  read: ReadSoFar,
  before: number,
  passes: (at: number, end: number) => boolean,
): boolean {
  if (read.boundAt < before) return false;
  if (before <= read.readUpTo) return true;
  const re = mentionsOf(name);
  re.lastIndex = read.readUpTo;
  for (let m = re.exec(lengthText); m && m.index < before; m = re.exec(lengthText))
    if (!passes(m.index, m.index + name.length)) {
      read.boundAt = m.index;
      return false;
    }
  read.readUpTo = before;
  return true;
}

/** A sequence is only read after `in` (`for x in NAME`, `x in NAME`) and by `len(NAME)`. */
function readsSequence(at: number, end: number): boolean {
  const before = lengthText.slice(Math.max(0, at - 12), at);
  return AFTER_IN.test(before) || (IN_LEN.test(before) && CLOSES.test(lengthText.slice(end, end + 8)));
}

const AFTER_IN = /(?:^|[^\w.])in[ \t]+$/;

const IN_LEN = /(?:^|[^\w.])len[ \t]*\([ \t]*$/;

const CLOSES = /^[ \t]*\)/;

/** An integer can only be bound again: a mention as an argument of a one-line `range(...)` cannot. */
function isRangeArgument(at: number, end: number): boolean {
  const lineStart = lengthText.lastIndexOf('\n', at) + 1;
  return IN_RANGE.test(lengthText.slice(lineStart, at)) && ENDS_ARGUMENT.test(lengthText.slice(end, end + 8));
}

const IN_RANGE = /(?:^|[^\w.])range[ \t]*\([^()\n]*$/;

const ENDS_ARGUMENT = /^[ \t]*[,)]/;

/** `("a", "b")`: one parenthesized display whose items are all literals, so nothing in it can change. */
export function isTupleOfLiterals(text: string, rhs: Span, items: readonly Span[]): boolean {
  return (
    text.charCodeAt(rhs.start) === 40 /* ( */ &&
    matchBracket(text, rhs.start, rhs.end) === rhs.end - 1 &&
    items.every((i) => literalArg(text, i) !== undefined)
  );
}

/** The node of the module's tree that spans exactly [start, end), if it parsed without errors. */
export function nodeAt(start: number, end: number): SyntaxNode | undefined {
  const node = moduleRoot?.descendantForIndex(start, end);
  return node && node.startIndex === start && node.endIndex === end && !node.hasError ? node : undefined;
}

/** How many items iterating the expression at `span` gives, as of `lengthBefore` (comprehension.ts). */
export function passesOver(span: Span): number | undefined {
  return iterableLength(nodeAt(span.start, span.end), knownNames);
}

/**
 * Where a known sequence's items are evaluated: its display names nothing
 * the index would follow, and its builtins are what they were where it was
 * written (`SPAN = range(2, 5)`).
 */
function displayScope(at: number): ValueScope {
  return {
    valueOf: () => undefined,
    lengthOf: () => undefined,
    binds: () => false,
    builtin: (name) => isBuiltin(name, at),
  };
}

export const knownNames: KnownNames = {
  lengthOf: (name) => knownValue(name, readsSequence)?.count,
  intOf: (name) => knownValue(name, isRangeArgument)?.int,
  valuesOf: (name) => {
    const known = knownValue(name, readsSequence);
    const span = known?.value;
    const node = span && nodeAt(span.start, span.end);
    const v = node ? evaluate(node, displayScope(known.at)) : undefined;
    return v?.kind === 'tuple' || v?.kind === 'list' || v?.kind === 'range' ? v : undefined;
  },
  builtin: (name) => isBuiltin(name),
};

/**
 * How far the mentions of each builtin the index evaluates (`range`,
 * `len`, `enumerate`) were read, as ReadSoFar: where the first mention that
 * may bind it again is.
 */
const builtinReads = new Map<string, ReadSoFar>();
/**
 * The module mentions `builtins` (`builtins.range = ...`), imports `*`
 * (Python allows that at module level only) or runs code from text
 * (`exec("range = ...")`), any of which may bind any name: no builtin is
 * sure to be Python's.
 */
let builtinsUnsure: boolean | undefined;
const STAR_IMPORT = /\bimport[\s\\]*\*/;
/** The module runs code from text (`exec`, `eval`, `compile`): its strings may be code. */
let runsText: boolean | undefined;
const RUNS_TEXT = /\b(?:exec|eval|compile)\s*\(/;

// Each asked of a module's whole text only when a question needs it: most modules never ask.
function runsTextNow(): boolean {
  return (runsText ??= RUNS_TEXT.test(lengthText));
}
function builtinsUnsureNow(): boolean {
  return (builtinsUnsure ??= runsTextNow() || lengthText.includes('builtins') || STAR_IMPORT.test(lengthText));
}

/**
 * Whether the name written at [at, end) is no mention of it: in a comment,
 * or a word of prose in a string (`hint="see the tasks"`), which names
 * nothing unless the module runs code from text. A string of the name
 * alone still counts (`globals()["tasks"]`).
 */
export function notAMention(at: number, end: number): boolean {
  const root = moduleRoot;
  return root !== undefined && (inComment(root, at) || (!runsTextNow() && inProse(root, at, end)));
}

/** Whether `name` is mentioned in `span` (anywhere but at `skip`) other than in a comment or in prose (notAMention). */
export function mentionedInCode(text: string, name: string, span: Span, skip = -1): boolean {
  return mentionedIn(text, name, span, skip, (at) => notAMention(at, at + name.length));
}

/**
 * Whether `name` still holds Python's builtin at `before`: every mention
 * of it above only reads it, sits in a comment, or is a word of prose in a
 * string. Anything else may bind it to what only running the module tells:
 * `def range`, `range = ...` in an `if` block, `global range`, an import
 * of it, `globals()["range"]`, and, to keep the rule simple, a local of
 * that name in a function (server/README.md).
 */
export function isBuiltin(name: string, before = lengthBefore): boolean {
  const root = moduleRoot;
  if (!root || builtinsUnsureNow()) return false;
  let read = builtinReads.get(name);
  if (!read) builtinReads.set(name, (read = readSoFar()));
  return stillHolds(name, read, before, (at, end) => readsOnly(root, at, end) || inProse(root, at, end));
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The integer the expression at `span` comes to as of `lengthBefore` when
 * it needs no running (`COUNT // 2`, `len(LEVELS) * 2`, `2 ** 10`), from
 * the tree (staticValue.ts).
 */
export function constantInt(span: Span): number | undefined {
  const node = nodeAt(span.start, span.end);
  const v = node && moduleValue(node, knownNames);
  return v?.kind === 'int' && v.value <= MAX_SAFE && v.value >= -MAX_SAFE ? Number(v.value) : undefined;
}
