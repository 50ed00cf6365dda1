/**
 * Module-level statements that grow a list in place: `tasks.append(x)`,
 * `tasks.extend(xs)`, `tasks += xs`, and a `for` loop whose body does only
 * that (`for n in range(3): tasks.append(solve(level=n))`). Discovery sees
 * the list as it is once the module has run, so the index adds what these
 * statements add. Only their shapes are read here; which lists the index
 * knows the length of, and how often a loop runs, are listTracking.ts's
 * (server/README.md, "Lists grown in place").
 */
import {
  closedExpressionEnd,
  identifierEnd,
  keywordValueAt,
  matchBracket,
  scanTo,
  skipSpaceAndComments,
  skipSpaces,
  trimEnd,
  trimStart,
  type Span,
} from './pyScan';

export interface GrowthStep {
  /** The list's name. */
  list: string;
  /** `append`: the expression is one item; `extend` (and `+=`): the expression is an iterable of items. */
  kind: 'append' | 'extend';
  value: Span;
}

const METHOD_CALL = /([A-Za-z_]\w*)[ \t]*\.[ \t]*(append|extend)[ \t]*\(/y;
const AUGMENTED = /([A-Za-z_]\w*)[ \t]*\+=[ \t]*/y;

/** The step that the simple statement in [from, to) is, as a whole; undefined for any other statement. */
export function growthStep(text: string, from: number, to: number): GrowthStep | undefined {
  METHOD_CALL.lastIndex = from;
  const call = METHOD_CALL.exec(text);
  if (call) {
    const open = from + call[0].length - 1;
    const close = matchBracket(text, open, to);
    if (close < 0 || trimStart(text, close + 1, to) < to) return undefined; // `tasks.append(x).y`
    const value = { start: skipSpaceAndComments(text, open + 1, close), end: trimEnd(text, open + 1, close) };
    // One positional argument: `append(a, b)` and `append(*a)` fail, `append()` too.
    if (value.end <= value.start || text[value.start] === '*' || scanTo(text, value.start, value.end, ',') < value.end)
      return undefined;
    return { list: call[1]!, kind: call[2] as 'append' | 'extend', value };
  }
  AUGMENTED.lastIndex = from;
  const augmented = AUGMENTED.exec(text);
  if (!augmented) return undefined;
  const start = from + augmented[0].length;
  return start < to ? { list: augmented[1]!, kind: 'extend', value: { start, end: to } } : undefined;
}

export interface GrowingLoop {
  /** The names the loop binds (its target), which keep the last item's value after it. */
  targets: string[];
  iterable: Span;
  /** What one pass through the body adds, in order. */
  steps: GrowthStep[];
}

const FOR_HEAD = /for[ \t]+([A-Za-z_]\w*(?:[ \t]*,[ \t]*[A-Za-z_]\w*)*)[ \t]*,?[ \t]+in(?!\w)[ \t]*/y;

/** A module-level `for` statement whose target is plain names, read as its parts. */
export interface ForLoop {
  /** The names the loop binds, which keep the last item's value after it. */
  targets: string[];
  iterable: Span;
  /** Where the head ends (its `:`). */
  colon: number;
  /** Each simple statement of the body, in order (the body of a `for` without `else` or a nested block). */
  body: Span[];
}

/**
 * The `for` statement in `st` when its target is one or more plain names
 * and its body is simple statements only (no `else`, no nested block:
 * those are read as statements the loop's parts cannot express, and the
 * caller gets undefined).
 */
export function forLoop(text: string, st: Span, isSimple: (from: number, to: number) => boolean): ForLoop | undefined {
  const head = forHead(text, st.start);
  if (!head) return undefined;
  const iterableStart = st.start + head[0].length;
  const colon = scanTo(text, iterableStart, st.end, ':');
  if (colon >= st.end || text.charCodeAt(colon) !== 58) return undefined;
  const iterable = { start: iterableStart, end: trimEnd(text, iterableStart, colon) };
  if (iterable.end <= iterable.start) return undefined;
  const body = simpleBody(text, colon + 1, st.end, isSimple);
  return body && { targets: namesOf(head), iterable, colon, body };
}

/**
 * The pieces of code in [from, end) (a block's body up to the next
 * module-level statement), each of which `isSimple` accepts; undefined when
 * one is not, or when there is none.
 */
export function simpleBody(
  text: string,
  from: number,
  end: number,
  isSimple: (from: number, to: number) => boolean,
): Span[] | undefined {
  const body: Span[] = [];
  for (let at = skipSpaceAndComments(text, from, end); at < end;) {
    // A piece cut short by an unmatched closer (`f(a,] b)`): no body the index reads, and no step past it.
    const to = closedExpressionEnd(text, at, end);
    if (to < 0 || !isSimple(at, to)) return undefined;
    body.push({ start: at, end: to });
    at = skipSpaceAndComments(text, to, end);
    if (text.charCodeAt(at) === 59 /* ; */) at = skipSpaceAndComments(text, at + 1, end);
  }
  return body.length ? body : undefined;
}

/**
 * The `for` statement in `st` when its target is one or more plain names
 * and its body only grows lists (no `else`, no nested block, no other
 * statement); undefined otherwise.
 */
export function growingLoop(text: string, st: Span): GrowingLoop | undefined {
  const steps: GrowthStep[] = [];
  const loop = forLoop(text, st, (from, to) => {
    const step = growthStep(text, from, to);
    if (step) steps.push(step);
    return step !== undefined;
  });
  return loop && { targets: loop.targets, iterable: loop.iterable, steps };
}

/** `name = value` in a block's body (a loop's: bound again on each pass). */
export interface BodyBinding {
  name: string;
  value: Span;
}

/** `name.verifier = value` in a block's body. */
export interface BodyVerifier {
  target: string;
  value: Span;
  /** The whole line. */
  line: Span;
}

/** `name[-1].verifier = value` in a loop's body: the verifier of the item last added to the list `target`. */
export interface LastItemVerifier extends BodyVerifier {
  lastItem: true;
}

/** A `for` loop that makes tasks: its body binds names, sets their verifiers and grows lists, in its order. */
export interface BuildingLoop extends GrowingLoop {
  colon: number;
  bindings: BodyBinding[];
  /** In the body's order. */
  verifiers: (BodyVerifier | LastItemVerifier)[];
}

/**
 * The `for` statement in `st` when its target is plain names and its body
 * is made of plain bindings (`t = solve(level=n)`), verifiers set on a
 * name (`t.verifier = check(...)`) or on the item last added to a list
 * (`tasks[-1].verifier = ...`) and list growth (`tasks.append(t)`), with at
 * least one binding or last-item verifier: the loop that builds a taskset
 * one task at a time. Undefined for any other statement. Which of these
 * the index can follow (what the names hold, how often the loop runs) is
 * moduleLoops.ts's.
 */
export function buildingLoop(text: string, st: Span): BuildingLoop | undefined {
  const steps: GrowthStep[] = [];
  const bindings: BodyBinding[] = [];
  const verifiers: (BodyVerifier | LastItemVerifier)[] = [];
  const loop = forLoop(text, st, (from, to) => {
    const step = growthStep(text, from, to);
    if (step) {
      steps.push(step);
      return true;
    }
    const verifier = verifierLine(text, from, to) ?? lastItemVerifierLine(text, from, to);
    if (verifier) verifiers.push(verifier);
    const binding = verifier ? undefined : bindingLine(text, from, to);
    if (binding) bindings.push(binding);
    return verifier !== undefined || binding !== undefined;
  });
  if (!loop || (bindings.length === 0 && !verifiers.some((v) => 'lastItem' in v))) return undefined;
  return { targets: loop.targets, iterable: loop.iterable, steps, colon: loop.colon, bindings, verifiers };
}

/** `name = value` filling [from, to): one name, one value (`a = b = x` and `a, b = x` are not read). */
export function bindingLine(text: string, from: number, to: number): BodyBinding | undefined {
  const valueAt = keywordValueAt(text, from, to);
  if (valueAt < 0 || valueAt >= to || keywordValueAt(text, valueAt, to) >= 0) return undefined;
  return { name: text.slice(from, identifierEnd(text, from, to)), value: { start: valueAt, end: to } };
}

/** `name.verifier = value` filling [from, to), the value not empty. */
export function verifierLine(text: string, from: number, to: number): BodyVerifier | undefined {
  const nameEnd = identifierEnd(text, from, to);
  if (nameEnd === from) return undefined;
  const dot = skipSpaces(text, nameEnd, to);
  if (text.charCodeAt(dot) !== 46 /* . */) return undefined;
  const word = skipSpaces(text, dot + 1, to);
  if (!text.startsWith('verifier', word) || identifierEnd(text, word, to) !== word + 'verifier'.length)
    return undefined;
  const valueAt = keywordValueAt(text, word, to);
  if (valueAt < 0 || valueAt >= to) return undefined;
  return { target: text.slice(from, nameEnd), value: { start: valueAt, end: to }, line: { start: from, end: to } };
}

/** `name[-1].verifier = value` filling [from, to), the value not empty. */
export function lastItemVerifierLine(text: string, from: number, to: number): LastItemVerifier | undefined {
  const nameEnd = identifierEnd(text, from, to);
  if (nameEnd === from) return undefined;
  LAST_ITEM.lastIndex = nameEnd;
  const m = LAST_ITEM.exec(text);
  if (!m || nameEnd + m[0].length > to) return undefined;
  const valueAt = keywordValueAt(text, nameEnd + m[0].length - 'verifier'.length, to);
  if (valueAt < 0 || valueAt >= to) return undefined;
  return {
    target: text.slice(from, nameEnd),
    value: { start: valueAt, end: to },
    line: { start: from, end: to },
    lastItem: true,
  };
}
const LAST_ITEM = /[ \t]*\[[ \t]*-[ \t]*1[ \t]*\][ \t]*\.[ \t]*verifier(?!\w)/y;

/** The names a module-level `for` statement at `at` binds, when its target is plain names. */
export function forTargets(text: string, at: number): string[] | undefined {
  const head = forHead(text, at);
  return head ? namesOf(head) : undefined;
}

function forHead(text: string, at: number): RegExpExecArray | null {
  FOR_HEAD.lastIndex = at;
  return FOR_HEAD.exec(text);
}

const namesOf = (head: RegExpExecArray): string[] => head[1]!.split(',').map((t) => t.trim());
