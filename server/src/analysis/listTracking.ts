/**
 * Which module-level lists the index knows the items of, as the statements
 * are read: a list display bound to names makes one known; the growth
 * steps and loops listGrowth.ts reads add to it; any other mention of it
 * (a call that may change it, a binding, an `insert`) makes it unknown.
 */
import { simpleAssignment } from './assignments';
import { MAX_COMPREHENSION_ELEMENTS } from './comprehension';
import { sequenceItems } from './displays';
import { mentionedInCode, notAMention, passesOver, readingAt } from './knownValues';
import { growingLoop, growthStep, type GrowthStep } from './listGrowth';
import { claimTasks, COMPOUND_HEAD } from './moduleBindings';
import { expressionEnd, hasStarred, headIs, keywordAt, trimEnd, type Span } from './pyScan';
import { emptied, UNCOUNTED, type Ctx, type KnownList, type Statement } from './pythonModule';
import { leavesItemsAlone } from './readOnlyMention';
import { bindsName } from './rebinding';
import { pushElements, shareCandidates, uniqueOthers } from './taskCandidates';
import { noteListReached, noteListTouched } from './verifierReach';
import { asciiNamesIn, isAsciiName, mentionedIn, mentionsOf } from './writtenNames';

/**
 * Lists bound at module level to a display whose length is known, as of the
 * statement being read: the statement that bound each, and how many items
 * it holds by now (listGrowth.ts).
 */
export const knownLists = new Map<string, KnownList>();

/** Whether a name of `knownLists` has characters other than ASCII letters, digits and `_` (asciiNamesIn misses it). */
let listNameNotAscii = false;

/**
 * Names bound to a display that holds a known list whole (`pair = (suite,
 * x)`; heldAsItem, reboundAndHeld), and that list: through them a later
 * statement may reach the list itself (`pair[0].pop()`, `x = pair[0]`).
 */
const listHolders = new Map<string, KnownList>();

/**
 * Lists no longer followed whose elements are still listed, by their
 * names: a later statement may still reorder them or give them verifiers
 * (`print(tasks)`, then `tasks.reverse()`).
 */
const stillListed = new Map<string, KnownList>();

/** Whether trackLists has anything to watch for before a list display is bound. */
export function watchesLists(): boolean {
  return knownLists.size > 0 || listHolders.size > 0 || stillListed.size > 0;
}

/** Forgets the lists of the module read before. */
export function forgetLists(): void {
  emptied(knownLists);
  emptied(listHolders);
  emptied(stillListed);
  listNameNotAscii = false;
}

export function mentionsList(text: string, span: Span): boolean {
  for (const name of knownLists.keys()) if (mentionedInCode(text, name, span)) return true;
  return false;
}

/** Follows `st` when it is a growth step on a known list, or a `for` loop of nothing else (listGrowth.ts). */
export function growsKnownList(ctx: Ctx, st: Statement): boolean {
  const { text } = ctx;
  const step = growthStep(text, st.start, expressionEnd(text, st.start, st.end));
  if (step) return growLists(ctx, [step], 1, st);
  const loop = growingLoop(text, st);
  // A target that names a known list or task: inside the loop it holds the items instead.
  if (!loop || mentionsList(text, loop.iterable) || loop.targets.some((t) => knownLists.has(t) || ctx.taskOf.has(t)))
    return false;
  readingAt(st.start);
  const passes = passesOver(loop.iterable);
  return passes !== undefined && growLists(ctx, loop.steps, passes, st);
}

/**
 * Adds what `steps` add to known lists, `passes` times over (a loop's body,
 * or one statement). False, adding nothing, when a list is not known, when
 * what an `extend` adds is not, or when a value mentions a known list (it
 * may take from it: `a.append(b.pop())`).
 */
function growLists(ctx: Ctx, steps: readonly GrowthStep[], passes: number, st: Statement): boolean {
  const added = passItems(ctx, steps, st.start);
  return added !== undefined && addPasses(ctx, added, passes, st);
}

/**
 * What one pass of `steps` at `at` adds to each known list, in order, read
 * without adding anything; undefined when growLists would add nothing.
 */
export function passItems(ctx: Ctx, steps: readonly GrowthStep[], at: number): Map<KnownList, Span[]> | undefined {
  const { text } = ctx;
  const added = new Map<KnownList, Span[]>();
  readingAt(at);
  for (const step of steps) {
    const list = knownLists.get(step.list);
    if (!list || mentionsList(text, step.value)) return undefined;
    const items = step.kind === 'append' ? [step.value] : sequenceItems(text, step.value);
    if (!items || items === UNCOUNTED || hasStarred(text, items)) return undefined;
    const pass = added.get(list);
    if (pass) pass.push(...items);
    else added.set(list, [...items]);
  }
  return added;
}

/** Adds each list's pass `passes` times over; false, adding nothing, when a list would grow past the bound. */
export function addPasses(
  ctx: Ctx,
  added: ReadonlyMap<KnownList, readonly Span[]>,
  passes: number,
  st: Statement,
): boolean {
  const { facts } = ctx;
  for (const [list, pass] of added) if (list.length + pass.length * passes > MAX_COMPREHENSION_ELEMENTS) return false;
  for (const [list, pass] of added) {
    const items: Span[] = [];
    for (let p = 0; p < passes; p++) items.push(...pass);
    const made = facts.tasks.length;
    pushElements(ctx, items, list.names[0]!, false, list.length, pass.length);
    shareCandidates(facts, made, facts.tasks.length, list.names.slice(1));
    list.length += items.length;
    // The items belong to the list's binding: bound again later, the list and all it grew to are gone.
    claimTasks(ctx, st.start, list.statement);
  }
  return true;
}

/**
 * Keeps knownLists true after statement `k`: binding names to a list
 * display makes it known; any other mention of a known list under any of
 * its names (a call that may change it, an `insert`, a binding, even a
 * comment) makes it unknown, except the growth just followed and
 * `tasks[1].verifier = ...`.
 */
export function trackLists(ctx: Ctx, st: Statement, k: number, grew: boolean): void {
  const { text } = ctx;
  const p = st.parsed;
  if (listHolders.size) noteHoldersMentioned(ctx, st);
  if (stillListed.size) noteStillListedMentioned(ctx, st);
  if (!grew && knownLists.size && mayNameList(text, st)) {
    const skip = p?.kind === 'verifier' ? st.start : -1;
    for (const [name, list] of [...knownLists])
      if (knownLists.has(name) && mentionedInCode(text, name, st, skip)) {
        if (heldAsItem(ctx, st, name, list)) {
          holdList(st, list);
          continue;
        }
        // `c = solve()` or `del c` where `c = suite = [...]`: the list is still known by its other names.
        const only = reboundOnly(ctx, st, list);
        const held = only ? undefined : reboundAndHeld(ctx, st, list);
        if (held) holdList(st, list);
        const rebound = only ?? held;
        if (rebound) {
          for (const alias of rebound) knownLists.delete(alias);
          const names = list.names.filter((n) => !rebound.includes(n));
          if (names.length) list.names = names;
          continue;
        }
        for (const alias of list.names) knownLists.delete(alias);
        // Which items a statement the index does not read gives a verifier is known only by running it.
        const source = text.slice(st.start, st.end);
        if (!noteListTouched(ctx, st, source, list)) for (const alias of list.names) stillListed.set(alias, list);
      }
  }
  if (
    p?.kind === 'name' &&
    p.items &&
    p.items !== UNCOUNTED &&
    text[p.rhs.start] === '[' &&
    !hasStarred(text, p.items)
  ) {
    const list = { statement: k, length: p.items.length, names: [p.name, ...uniqueOthers(p.name, p.more ?? [])] };
    for (const name of list.names) {
      knownLists.set(name, list);
      if (!isAsciiName(name)) listNameNotAscii = true;
    }
  }
}

/**
 * A statement naming a list of stillListed is judged as the statement that
 * made the index stop following it was (verifierReach.ts, noteListTouched);
 * a simple statement binding one of its names ends that name's watch.
 */
function noteStillListedMentioned(ctx: Ctx, st: Statement): void {
  let source: string | undefined;
  for (const name of namesIn(ctx.text, st, stillListed)) {
    const list = stillListed.get(name);
    if (!list || !mentionedInCode(ctx.text, name, st)) continue;
    if (noteListTouched(ctx, st, (source ??= ctx.text.slice(st.start, st.end)), list))
      for (const alias of list.names) stillListed.delete(alias);
    else if (bindsName(st.binds, name) && !headIs(COMPOUND_HEAD, ctx.text, st.start)) stillListed.delete(name);
  }
}

/** The keys of `names` that `st` may mention: looked up by the statement's words, unless one is not ASCII. */
function namesIn(text: string, st: Span, names: ReadonlyMap<string, unknown>): Iterable<string> {
  for (const name of names.keys()) if (!isAsciiName(name)) return [...names.keys()];
  return asciiNamesIn(text, st);
}

/** Notes the names `st` binds (to a display holding `list` whole) as holders of it (listHolders). */
function holdList(st: Statement, list: KnownList): void {
  const b = st.binds;
  if (typeof b === 'string') listHolders.set(b, list);
  else if (b) for (const name of b) listHolders.set(name, list);
}

/**
 * Any mention of a holder in `st`, read or not, but one that leaves the
 * holder's items alone (`pair.append(x)`, `pair = None`; readOnlyMention.ts,
 * leavesItemsAlone), may reach the list it holds and change it
 * (`pair[0].pop()`, `for x in pair: x.reverse()`): which task sits at which
 * index of it is then known only by running the module (verifierReach.ts,
 * noteListReached). Either way, or bound again, the holder is not followed
 * further; so is one a simple statement binds again (not an `if` or a loop,
 * which may not run). A display holding the holder whole (`more = [pair]`)
 * leaves the list alone too, and its names hold the list as well.
 */
function noteHoldersMentioned(ctx: Ctx, st: Statement): void {
  const p = st.parsed;
  const items = p?.kind === 'name' && p.items !== UNCOUNTED ? p.items : undefined;
  // `pair[0].verifier = ...`, read: the item it names is known, and is not the list.
  const skip = p?.kind === 'verifier' ? st.start : -1;
  for (const [holder, list] of [...listHolders]) {
    let asItem = false;
    const ignored = (at: number) => {
      const end = at + holder.length;
      if (items?.some((item) => item.start === at && item.end === end)) return (asItem = true);
      return notAMention(at, end) || leavesItemsAlone(ctx.root, at, end);
    };
    if (mentionedIn(ctx.text, holder, st, skip, ignored)) {
      listHolders.delete(holder);
      for (const name of list.names) if (knownLists.get(name) === list) knownLists.delete(name);
      noteListReached(ctx, st, list);
      continue;
    }
    if (bindsName(st.binds, holder) && !headIs(COMPOUND_HEAD, ctx.text, st.start)) listHolders.delete(holder);
    // `more = [pair, x]`: a display holding the holder whole holds the list too.
    if (asItem) holdList(st, list);
  }
}

/**
 * Whether `st` may name a known list: one of its names is a list's, or a
 * list's name is not ASCII. Looking its names up in the map, rather than
 * searching the statement for each list, keeps a module of thousands of
 * lists linear (bench/index: `longModules`).
 */
function mayNameList(text: string, st: Span): boolean {
  if (listNameNotAscii) return true;
  for (const name of asciiNamesIn(text, st)) if (knownLists.has(name)) return true;
  return false;
}

/**
 * Whether `st` only puts the list in a display (`pair = (suite, other)`,
 * `more = [suite] + [x]`): every mention of `name` in it is a whole item of
 * the display it binds to another name. That takes nothing from the list
 * and changes nothing in it, so what it holds is still known.
 */
function heldAsItem(ctx: Ctx, st: Statement, name: string, list: KnownList): boolean {
  const p = st.parsed;
  if (p?.kind !== 'name' || !p.items || p.items === UNCOUNTED) return false;
  for (const alias of list.names) if (bindsName(st.binds, alias)) return false;
  return onlyAsItems(ctx.text, name, st, p.items);
}

/** Whether every mention of `name` in `span` is a whole item of `items`. */
function onlyAsItems(text: string, name: string, span: Span, items: readonly Span[]): boolean {
  const re = mentionsOf(name);
  re.lastIndex = span.start;
  for (let m = re.exec(text); m && m.index < span.end; m = re.exec(text)) {
    const at = m.index;
    if (!items.some((item) => item.start === at && item.end === at + name.length)) return false;
  }
  return true;
}

/**
 * The names of `list` that `st` binds again to a display holding the list
 * whole under its other names (`c = suite = [...]`, then `suite = (x, c)`):
 * the list itself is untouched and still known by the names not bound.
 */
function reboundAndHeld(ctx: Ctx, st: Statement, list: KnownList): string[] | undefined {
  const p = st.parsed;
  if (p?.kind !== 'name' || !p.items || p.items === UNCOUNTED) return undefined;
  const names = list.names.filter((n) => bindsName(st.binds, n));
  if (names.length === 0 || names.length === list.names.length) return undefined;
  for (const n of list.names) if (!onlyAsItems(ctx.text, n, p.rhs, p.items)) return undefined;
  return names;
}

/**
 * The names of `list` that `st` only binds again (`c = solve()`, `del c`),
 * when it mentions the list nowhere else: the list itself is untouched.
 * Undefined for any other mention.
 */
function reboundOnly(ctx: Ctx, st: Statement, list: KnownList): string[] | undefined {
  const { text } = ctx;
  if (st.loop || !st.binds) return undefined;
  const bound = typeof st.binds === 'string' ? [st.binds] : st.binds;
  const names = list.names.filter((n) => bound.includes(n));
  if (names.length === 0) return undefined;
  const p = st.parsed;
  let rest: Span | undefined;
  if (p?.kind === 'name') rest = p.rhs;
  else if (keywordAt(text, st.start, 'del')) rest = { start: st.end, end: st.end };
  else rest = simpleAssignment(text, st)?.rhs;
  if (!rest || rest.end < trimEnd(text, st.start, st.end)) return undefined;
  return list.names.some((n) => mentionedIn(text, n, rest)) ? undefined : names;
}
