/**
 * The module-level `for` loops the index reads whole: a loop over nothing,
 * a loop that sets the verifier of each task it goes over, and a loop that
 * builds a taskset one task at a time. Any other loop is only a statement
 * that may bind and change the names it mentions.
 */
import { parseCall, verifierValue } from './callFacts';
import { sequenceItems } from './displays';
import type { CallFacts, PythonFacts, Range, TaskCandidate, VerifierAssignment, VerifierValue } from './facts';
import { intern } from './intern';
import { isBuiltin, passesOver, readingAt } from './knownValues';
import { buildingLoop, forLoop, type GrowthStep } from './listGrowth';
import { addPasses, knownLists, mentionsList, passItems } from './listTracking';
import { claimAssignments, claimTasks, followed } from './moduleBindings';
import { VERIFIER_TARGET } from './assignments';
import {
  calleeEndAt,
  identifierEnd,
  isName,
  isWordCode,
  keywordAt,
  matchAt,
  matchBracket,
  skipSpaces,
  splitTopLevel,
  type Span,
} from './pyScan';
import { statementOfTask, UNCOUNTED, type Ctx, type KnownList, type Statement } from './pythonModule';
import { bindsName } from './rebinding';
import { heldTask } from './taskCandidates';
import { mentionedIn } from './writtenNames';

/**
 * `for t in suite: t.verifier = check(...)`: a loop whose body only sets
 * its target's verifier sets that of each task the iterable yields, and
 * its target holds the last of them after it, as discovery sees the
 * module. The iterable is a known list, `enumerate` of one (`for i, t in
 * enumerate(suite)`), or a display of names holding tasks (`for t in (a,
 * b)`); every item must be a task the index knows, or nothing is read.
 * False when it reads nothing; 'overNothing' when the iterable is empty,
 * so the body never ran and the loop binds nothing.
 */
export function setsVerifiers(ctx: Ctx, st: Statement, k: number): false | 'read' | 'overNothing' {
  const { text, facts } = ctx;
  const mention = text.indexOf('.verifier', st.start);
  if (mention < 0 || mention >= st.end) return false;
  const lines: { target: string; value: Span; range: Range }[] = [];
  const loop = forLoop(text, st, (from, to) => {
    const v = matchAt(VERIFIER_TARGET, text, from, to);
    if (!v || v[2] !== undefined) return false;
    const value = { start: from + v[0].length, end: to };
    if (value.end <= value.start) return false;
    lines.push({ target: v[1]!, value, range: ctx.lines.rangeAt(from, to) });
    return true;
  });
  if (!loop) return false;
  let iterable = loop.iterable;
  let taskVariable = loop.targets[0]!;
  if (loop.targets.length === 2) {
    const inner = enumerated(ctx, iterable);
    if (!inner) return false;
    iterable = inner;
    taskVariable = loop.targets[1]!;
  } else if (loop.targets.length !== 1) return false;
  if (lines.some((l) => l.target !== taskVariable)) return false;
  // A target naming a known list binds it to an item; a value mentioning one may change it (`pick(suite.pop())`).
  if (loop.targets.some((t) => knownLists.has(t)) || lines.some((l) => mentionsList(text, l.value))) return false;
  const items = itemsOf(ctx, iterable, k);
  if (!items) return false;
  const values: VerifierValue[] = [];
  for (const line of lines) {
    const value = verifierValue(ctx, line.value);
    if (!value || (value.kind === 'name' && loop.targets.includes(value.name))) return false;
    values.push(followed(ctx, value, st.start));
  }
  for (const item of items)
    lines.forEach((line, i) => {
      const assignment: VerifierAssignment = { target: item.name, value: values[i]!, range: line.range };
      if (item.index !== undefined) assignment.index = item.index;
      facts.verifierAssignments.push(assignment);
    });
  const last = items[items.length - 1];
  if (last) {
    const range = ctx.lines.rangeAt(st.start, loop.colon);
    facts.tasks.push({ name: intern(taskVariable), call: last.call, sharedCall: true, loopTarget: true, range });
    claimTasks(ctx, st.start, k);
  }
  claimAssignments(ctx, st.start, k);
  return last ? 'read' : 'overNothing';
}

/**
 * Whether `st` is a `for` loop without `else` over an iterable known to be
 * empty: its body never runs, so it binds and changes nothing.
 */
export function overNothing(ctx: Ctx, st: Statement): boolean {
  const { text } = ctx;
  if (!keywordAt(text, st.start, 'for')) return false;
  const loop = forLoop(text, st, () => true);
  if (!loop) return false;
  for (let at = text.indexOf('\nelse', st.start); at >= 0 && at < st.end; at = text.indexOf('\nelse', at + 1))
    if (!isWordCode(text.charCodeAt(at + 5))) return false;
  readingAt(st.start);
  return passesOver(loop.iterable) === 0;
}

/**
 * The loop that builds a taskset one task at a time:
 *
 *     for n in range(3):
 *         t = solve(level=n)
 *         t.verifier = check(expected=str(n))
 *         tasks.append(t)
 *
 * Each pass makes a new task for each name bound to a template call, sets
 * the verifiers written on those names, and appends or extends known lists
 * with them, in the body's order; after the loop each name still holds
 * its last pass's task, as discovery sees the module. Returns the names
 * the body binds when it is read; undefined, reading nothing, when the
 * index cannot follow it: an iterable it cannot count, a name bound twice
 * or used before its binding, a task put in a list twice, a value that
 * mentions a known list, a verifier set on anything but a name the body
 * bound to a task.
 */
export function buildsTasks(ctx: Ctx, st: Statement, k: number): string[] | undefined {
  const { text, facts } = ctx;
  const loop = buildingLoop(text, st);
  if (!loop) return undefined;
  const { targets, bindings, verifiers, steps } = loop;
  // A target naming a known list or task binds it to an item; an iterable mentioning a list may be the one grown.
  if (mentionsList(text, loop.iterable) || targets.some((t) => knownLists.has(t) || ctx.taskOf.has(t)))
    return undefined;
  const bindingOf = new Map<string, LoopBindingRead>();
  for (const b of bindings) {
    const name = b.name;
    if (bindingOf.has(name) || targets.includes(name) || knownLists.has(name)) return undefined;
    if (mentionsList(text, b.value)) return undefined;
    const call = parseCall(ctx, b.value)?.facts;
    bindingOf.set(name, { span: b.value, call, placed: undefined, verifiers: [] });
  }
  // A name used before the body binds it holds the previous pass's value (or raises NameError on the first).
  const boundBefore = (name: string, at: number) => {
    const b = bindingOf.get(name);
    return b !== undefined && b.span.end <= at;
  };
  // `tasks[-1].verifier = ...`: the verifier of what the list's latest step before the line appended.
  const lastItems: { step: number; value: VerifierValue; range: Range }[] = [];
  for (const v of verifiers) {
    let b: LoopBindingRead | undefined;
    let step = -1;
    if ('lastItem' in v) {
      step = latestStep(steps, v.target, v.line.start);
      const item = step < 0 || steps[step]!.kind !== 'append' ? undefined : steps[step]!.value;
      if (!item) return undefined; // an item from an earlier pass or from before the loop
      if (isName(text, item)) {
        b = bindingOf.get(text.slice(item.start, item.end));
        if (!b) return undefined;
      } else if (!parseCall(ctx, item)) return undefined;
    } else {
      b = bindingOf.get(v.target);
      if (!b || !boundBefore(v.target, v.line.start)) return undefined;
    }
    if ((b && !b.call) || mentionsList(text, v.value)) return undefined;
    const value = verifierValue(ctx, v.value);
    if (!value || (value.kind === 'name' && (targets.includes(value.name) || bindingOf.has(value.name))))
      return undefined;
    const read = { value: followed(ctx, value, st.start), range: ctx.lines.rangeAt(v.line.start, v.line.end) };
    if (b) b.verifiers.push(read);
    else lastItems.push({ step, ...read });
  }
  // Where each bound name goes in each list's pass: a name put in a list is that very task, once per pass.
  const added = passItems(ctx, steps, st.start);
  if (!added) return undefined;
  for (const [list, pass] of added)
    for (let position = 0; position < pass.length; position++) {
      const item = pass[position]!;
      const name = isName(text, item) ? text.slice(item.start, item.end) : undefined;
      const b = name === undefined ? undefined : bindingOf.get(name);
      if (b) {
        if (b.placed || !boundBefore(name!, item.start)) return undefined;
        b.placed = { list, position, start: list.length };
        pass[position] = b.span; // what the list gets is the value the name was bound to on the same pass
      } else for (const other of bindingOf.keys()) if (mentionedIn(text, other, item)) return undefined;
    }
  readingAt(st.start);
  const passes = passesOver(loop.iterable);
  const lengths = new Map<KnownList, number>();
  for (const list of added.keys()) lengths.set(list, list.length);
  // A loop over nothing is overNothing's.
  if (!passes || !addPasses(ctx, added, passes, st)) return undefined;
  for (const { step, ...read } of lastItems) {
    const list = knownLists.get(steps[step]!.list)!;
    const position = itemsBefore(text, steps, step);
    for (let p = 0; p < passes; p++) {
      const index = lengths.get(list)! + p * added.get(list)!.length + position;
      facts.verifierAssignments.push({ target: list.names[0]!, index, ...read });
    }
  }
  const head = ctx.lines.rangeAt(st.start, loop.colon);
  for (const [name, b] of bindingOf) {
    if (!b.call) continue;
    const placed = b.placed;
    if (!placed) {
      // Kept by nothing else: only the last pass's task is left, under this name.
      facts.tasks.push({ name: intern(name), call: b.call, range: ctx.lines.rangeAt(b.span.start, b.span.end) });
      for (const v of b.verifiers) facts.verifierAssignments.push({ target: intern(name), ...v });
      continue;
    }
    const list = placed.list;
    const period = added.get(list)!.length;
    const listName = list.names[0]!;
    let last: TaskCandidate | undefined;
    for (let p = 0; p < passes; p++) {
      const index = placed.start + p * period + placed.position;
      for (const v of b.verifiers) facts.verifierAssignments.push({ target: listName, index, ...v });
      if (p === passes - 1) last = elementAt(facts, listName, index);
    }
    if (last)
      facts.tasks.push({ name: intern(name), call: last.call, sharedCall: true, loopTarget: true, range: head });
  }
  claimTasks(ctx, st.start, k);
  claimAssignments(ctx, st.start, k);
  return [...bindingOf.keys()];
}

/** The latest of `steps` that grows `list` before `at`, or -1. */
function latestStep(steps: readonly GrowthStep[], list: string, at: number): number {
  let found = -1;
  for (let i = 0; i < steps.length && steps[i]!.value.start < at; i++) if (steps[i]!.list === list) found = i;
  return found;
}

/** How many items the steps before `steps[at]` add to its list in one pass (passItems has counted each). */
function itemsBefore(text: string, steps: readonly GrowthStep[], at: number): number {
  let n = 0;
  for (let i = 0; i < at; i++) {
    const step = steps[i]!;
    if (step.list !== steps[at]!.list) continue;
    const items = step.kind === 'append' ? undefined : sequenceItems(text, step.value);
    n += items === undefined ? 1 : items === UNCOUNTED ? 0 : items.length;
  }
  return n;
}

interface LoopBindingRead {
  span: Span;
  /** The template call it is bound to, if it is one. */
  call: CallFacts | undefined;
  /** The list it is put in, where in each pass, and the list's length before the loop. */
  placed: { list: KnownList; position: number; start: number } | undefined;
  verifiers: { value: VerifierValue; range: Range }[];
}

/** The candidate made last for element `index` of the list `name`. */
function elementAt(facts: PythonFacts, name: string, index: number): TaskCandidate | undefined {
  for (let i = facts.tasks.length - 1; i >= 0; i--) {
    const t = facts.tasks[i]!;
    if (t.name === name && t.index === index) return t;
  }
  return undefined;
}

/** The single argument X of `enumerate(X)`, when the builtin is not shadowed. */
function enumerated(ctx: Ctx, span: Span): Span | undefined {
  const { text } = ctx;
  const calleeEnd = calleeEndAt(text, span.start);
  if (calleeEnd !== span.start + 'enumerate'.length || !text.startsWith('enumerate', span.start)) return undefined;
  readingAt(span.start);
  if (ctx.bound.has('enumerate') || !isBuiltin('enumerate')) return undefined;
  const open = skipSpaces(text, calleeEnd);
  if (matchBracket(text, open, span.end) !== span.end - 1) return undefined;
  const args = splitTopLevel(text, open + 1, span.end - 1);
  return args.length === 1 && text.charCodeAt(args[0]!.start) !== 42 /* * */ ? args[0] : undefined;
}

/**
 * The tasks a loop's iterable yields, in order, as the names and indexes
 * verifiers are assigned through: each item of a known list, or each name
 * of a display that holds a task. Undefined when any item is not a task
 * the index knows.
 */
function itemsOf(ctx: Ctx, span: Span, k: number): { name: string; index?: number; call: CallFacts }[] | undefined {
  const { text, facts } = ctx;
  const slice = sliceAt(text, span);
  if (slice) {
    const whole = itemsOf(ctx, slice.of, k);
    return whole && sliced(whole, slice);
  }
  if (isName(text, span)) {
    const list = knownLists.get(text.slice(span.start, span.end));
    if (!list) return tupleItems(ctx, intern(text.slice(span.start, span.end)), k);
    // Its elements as of its binding and growth: an earlier binding of the same name may have made others.
    const out = elementsMadeAt(facts, list.statement, list.names[0]!);
    return out.length === list.length ? out : undefined;
  }
  readingAt(span.start);
  const items = sequenceItems(text, span);
  if (!items || items === UNCOUNTED) return undefined;
  const out: { name: string; call: CallFacts }[] = [];
  for (const item of items) {
    const held = heldTask(ctx, item);
    if (!held) return undefined;
    out.push({ name: intern(text.slice(item.start, item.end)), call: held.call });
  }
  return out;
}

/** `name[start:stop:step]` with each bound an integer literal or left out. */
interface SliceAt {
  of: Span;
  start: number | undefined;
  stop: number | undefined;
  step: number | undefined;
}

const SLICE_BOUND = /^[ \t]*(?:([-+]?[ \t]*\d+)[ \t]*)?$/;

/** `span` as a slice of a name by integer literals (`suite[1:]`, `suite[:-1]`, `suite[::2]`), else undefined. */
function sliceAt(text: string, span: Span): SliceAt | undefined {
  const nameEnd = identifierEnd(text, span.start, span.end);
  if (nameEnd === span.start || text.charCodeAt(nameEnd) !== 91 /* [ */) return undefined;
  const close = matchBracket(text, nameEnd, span.end);
  if (close !== span.end - 1) return undefined;
  const parts = text.slice(nameEnd + 1, close).split(':');
  if (parts.length < 2 || parts.length > 3) return undefined;
  const bounds: (number | undefined)[] = [];
  for (const part of parts) {
    const m = SLICE_BOUND.exec(part);
    if (!m) return undefined;
    bounds.push(m[1] === undefined ? undefined : Number(m[1].replace(/[ \t]/g, '')));
  }
  // A zero step raises ValueError when the module runs: there is nothing to read.
  if (bounds[2] === 0) return undefined;
  return { of: { start: span.start, end: nameEnd }, start: bounds[0], stop: bounds[1], step: bounds[2] };
}

/** The items a slice takes, as Python's `slice.indices` picks them. */
function sliced<T>(items: readonly T[], slice: SliceAt): T[] {
  const n = items.length;
  const step = slice.step ?? 1;
  const clamp = (bound: number | undefined, low: number, high: number, fallback: number): number => {
    if (bound === undefined) return fallback;
    const at = bound < 0 ? bound + n : bound;
    return at < low ? low : at > high ? high : at;
  };
  const out: T[] = [];
  if (step > 0) {
    const stop = clamp(slice.stop, 0, n, n);
    for (let i = clamp(slice.start, 0, n, 0); i < stop; i += step) out.push(items[i]!);
  } else {
    const stop = clamp(slice.stop, -1, n - 1, -1);
    for (let i = clamp(slice.start, -1, n - 1, n - 1); i > stop; i += step) out.push(items[i]!);
  }
  return out;
}

/**
 * The tasks of the tuple `name` holds at statement `k`: its latest binding
 * before `k` is a tuple display (immutable, so its items are those it was
 * made with) and the index made a task of each of its items.
 */
function tupleItems(ctx: Ctx, name: string, k: number): { name: string; index: number; call: CallFacts }[] | undefined {
  const { text, facts, statements } = ctx;
  let bound = k - 1;
  while (bound >= 0 && !bindsName(statements[bound]!.binds, name)) bound--;
  const parsed = bound >= 0 ? statements[bound]!.parsed : undefined;
  if (parsed?.kind !== 'name' || !parsed.items || parsed.items === UNCOUNTED || text[parsed.rhs.start] === '[')
    return undefined;
  const out = elementsMadeAt(facts, bound, name);
  return out.length === parsed.items.length ? out : undefined;
}

/** The elements `name[0]`, `name[1]`, ... that `statement` made (its binding, and growth claimed by it), in order. */
function elementsMadeAt(
  facts: PythonFacts,
  statement: number,
  name: string,
): { name: string; index: number; call: CallFacts }[] {
  const out: { name: string; index: number; call: CallFacts }[] = [];
  for (let i = 0; i < facts.tasks.length; i++) {
    const t = facts.tasks[i]!;
    if (statementOfTask[i] === statement && t.name === name && t.index === out.length)
      out.push({ name, index: t.index, call: t.call });
  }
  return out;
}
