/**
 * Tasks whose verifier only running the module tells, and so the index
 * lists under none of their names (never with a wrong verifier): those a
 * statement it does not read gives a verifier (`if strict: task.verifier =
 * ...`), those passed whole to a function that sets one (`attach(suite)`,
 * `with_check(task)`; a function of another module is for the linker to
 * ask), and the items of lists something may reorder. Part of the
 * extraction (pythonFacts.ts).
 */
import { BoundedCache } from './boundedCache';
import type { CallFacts, PythonFacts, TaskCandidate } from './facts';
import { isHudModule } from './hudModule';
import { internDotted } from './intern';
import {
  definitionHeadAt,
  isWordCode,
  keywordValueAt,
  matchBracket,
  skipDecorators,
  splitTopLevel,
  trimEnd,
  type DefinitionHead,
  type Span,
} from './pyScan';
import { imported, statementOfTask, type Ctx, type KnownList, type Statement } from './pythonModule';
import { bindsName } from './rebinding';
import { forEachKept, growsOnly, leavesListAlone, passedTo, storesValue } from './readOnlyMention';
import { notAMention } from './knownValues';
import { asciiNamesIn, forEachAsciiName, isAsciiName, mentionedIn } from './writtenNames';

/**
 * A statement the index does not read that sets the verifier of a name
 * holding a known task (`if strict: task.verifier = ...`): which verifier
 * that Task ends with is known only by running the module, so it is listed
 * under none of its names (dropUnknowable). When it sets the verifier of
 * anything else (a name it binds, as a loop's target, or an item,
 * `tasks[-1]`), that may be any task it mentions: all of those are noted.
 */
export function noteVerifiersSet(ctx: Ctx, st: Statement): void {
  if (!setsVerifierIn(ctx.text, st)) return;
  const source = ctx.text.slice(st.start, st.end);
  let indirect = false;
  for (let m = SETS_VERIFIER.exec(source); m; m = SETS_VERIFIER.exec(source)) {
    const name = m[1]!;
    const held = name.includes('[') || bindsName(st.binds, name) ? undefined : ctx.taskOf.get(name);
    if (held) unknowableCalls.add(held.call);
    else indirect = true;
  }
  if (indirect) {
    for (const [name, held] of ctx.taskOf) if (mentionedIn(ctx.text, name, st)) unknowableCalls.add(held.call);
    noteForgottenMentioned(ctx, st);
    noteElementsMentioned(ctx, st);
    noteHandedOn(ctx, st);
  }
}

/**
 * The tasks whose name was handed to something that may keep it before
 * `st` (`reg.add(task)`, `TASKS = {"x": task}`, `reg.extend(suite)`,
 * `reg.add(suite[0])`; storesValue): `st`, which sets a verifier through
 * something the index does not follow, may reach them through that holder.
 * A list's name handed on takes all its elements with it.
 */
function noteHandedOn(ctx: Ctx, st: Statement): void {
  const before = { start: 0, end: st.start };
  noteNamesReached(
    ctx,
    () => true,
    (name) => mentionedIn(ctx.text, name, before, -1, (at) => !storesValue(ctx.root, at, at + name.length)),
  );
}

/**
 * The plain tasks of names Ctx.taskOf no longer follows (a statement the
 * index does not read mentioned them: `if debug: print(task)`) that `st`
 * mentions: the name may still hold the very Task it made, so `st` may set
 * that Task's verifier as well.
 */
function noteForgottenMentioned(ctx: Ctx, st: Statement): void {
  noteNamesReached(
    ctx,
    (t) => t.index === undefined && !ctx.taskOf.has(t.name),
    (name) => mentionedIn(ctx.text, name, st),
  );
}

/**
 * Every candidate under each name that `reached` says `st` may reach,
 * asked once a name, of the names of the candidates `among` takes.
 */
function noteNamesReached(ctx: Ctx, among: (t: TaskCandidate) => boolean, reached: (name: string) => boolean): void {
  const asked = new Set<string>();
  for (const t of ctx.facts.tasks)
    if (!asked.has(t.name) && among(t)) {
      asked.add(t.name);
      if (reached(t.name)) for (const u of ctx.facts.tasks) if (u.name === t.name) unknowableCalls.add(u.call);
    }
}

/**
 * The elements of every tuple or list (known or not) that `st` mentions
 * by name: a statement that reaches tasks through it (`for t in
 * sorted(pair): t.verifier = ...`) may reach any of them.
 */
function noteElementsMentioned(ctx: Ctx, st: Statement): void {
  const names = elementNamesIn(ctx, st);
  if (names.length)
    for (const t of ctx.facts.tasks) if (t.index !== undefined && names.includes(t.name)) unknowableCalls.add(t.call);
}

/** The names of tuples or lists of Tasks that `st` mentions. */
function elementNamesIn(ctx: Ctx, st: Statement): string[] {
  const out: string[] = [];
  let checked: string | undefined;
  for (const t of ctx.facts.tasks)
    if (t.index !== undefined && t.name !== checked) {
      checked = t.name;
      if (!out.includes(t.name) && mentionedIn(ctx.text, t.name, st)) out.push(t.name);
    }
  return out;
}

/**
 * Whether a statement the index does not read may give items of `list` a
 * verifier: it sets the verifier of a name it binds (a loop's target over
 * some of the items) or of an item (`suite[i].verifier = ...`), or it passes
 * the list to a function of this module that sets a verifier (`attach(suite)`).
 */
function mayGiveVerifiers(ctx: Ctx, st: Statement, source: string, list: KnownList): boolean {
  if (st.parsed?.kind === 'verifier') return false; // read: its target is known
  if (passedToVerifyingFunction(ctx, st, list)) return true;
  for (let m = SETS_VERIFIER.exec(source); m; m = SETS_VERIFIER.exec(source)) {
    const target = m[1]!;
    const bracket = target.indexOf('[');
    const name = bracket < 0 ? target : target.slice(0, bracket).trimEnd();
    if (bracket < 0 ? bindsName(st.binds, name) : list.names.includes(name)) {
      SETS_VERIFIER.lastIndex = 0;
      return true;
    }
  }
  return false;
}
/**
 * Whether `st` passes the list whole to a function this module defines
 * whose body sets a verifier (`attach(suite)`, `attach(tasks=suite)`). A
 * function another module defines (`helpers.attach(suite)`) is noted in
 * givenLists: whether its body sets one is for the linker to ask.
 */
function passedToVerifyingFunction(ctx: Ctx, st: Statement, list: KnownList): boolean {
  let verifying = false;
  forEachPassed(
    ctx,
    st,
    (name) => list.names.includes(name),
    (_, callee, kind) => {
      if (kind === 'imported') givenLists.push({ statement: list.statement, callee });
      else verifying = true;
      return verifying;
    },
  );
  return verifying;
}

/**
 * A statement that passes a name holding a known Task whole to a function
 * whose body sets a verifier (`with_check(task)`): which verifier the Task
 * ends with is known only by running it, so the Task is listed under none of
 * its names (dropUnknowable); to a function of another module, the linker
 * asks that module (givenTasks, as givenLists). What else it is passed may
 * hold Tasks too (noteHoldersPassed).
 */
export function notePassedTasks(ctx: Ctx, st: Statement): void {
  if (!ctx.facts.tasks.length || !mentionsPassTarget(ctx, st)) return;
  if (mentionsTasks(ctx, st))
    forEachPassed(
      ctx,
      st,
      (name) => holdsTasks(ctx, name),
      (name, callee, kind) => {
        for (const call of heldBy(ctx, name))
          if (kind === 'verifying') unknowableCalls.add(call);
          else noteGiven(call, callee);
        return false;
      },
    );
  noteHoldersPassed(ctx, st);
}

/**
 * The Tasks `name` may hold: the one taskOf follows; else the elements of a tuple or list (passed whole:
 * `vall(pair)`), or the tasks made under the name that taskOf no longer follows (noteForgottenMentioned).
 */
function heldBy(ctx: Ctx, name: string): CallFacts[] {
  const held = ctx.taskOf.get(name);
  if (held) return [held.call];
  const calls: CallFacts[] = [];
  for (const t of ctx.facts.tasks) if (t.name === name) calls.push(t.call);
  return calls;
}

/** Asked of every argument passed: answered without the array heldBy makes for the few that hold Tasks. */
function holdsTasks(ctx: Ctx, name: string): boolean {
  return ctx.taskOf.has(name) || ctx.facts.tasks.some((t) => t.name === name);
}

/**
 * Whatever is passed to a function that sets verifiers, beside a known Task
 * itself (`reg.add(a)` then `vall(reg)`; `vall([a])`), may hold the Tasks
 * of the names handed to it before (holdersOf): their verifier is then
 * known only by running that function or, for one of another module, by
 * the linker asking it.
 */
function noteHoldersPassed(ctx: Ctx, st: Statement): void {
  let verifying = false;
  let callees: (readonly string[])[] | undefined;
  const passed = new Set<string>();
  forEachPassed(
    ctx,
    st,
    (arg) => !LITERAL.test(arg),
    (arg, callee, kind) => {
      for (const name of asciiNamesIn(arg, { start: 0, end: arg.length })) passed.add(name);
      if (kind === 'verifying') verifying = true;
      else (callees ??= []).push(callee);
      return false;
    },
  );
  if (!passed.size) return;
  const holders = holdersOf(ctx, st, passed);
  for (const t of ctx.facts.tasks)
    if (holders.has(t.name) || (!isAsciiName(t.name) && mentionedIn(ctx.text, t.name, { start: 0, end: st.end })))
      if (verifying) unknowableCalls.add(t.call);
      else for (const callee of callees!) noteGiven(t.call, callee);
}

/**
 * `passed`, with what a statement before `st` put into one of them
 * (`reg.add(a)`, `reg = {"k": a}`, `reg[k] = a`) and what one of them was
 * put into (`r = reg`, then `r.add(a)`), in order (readOnlyMention.ts,
 * keptIn): what the index does not follow may have handed a Task to those.
 */
function holdersOf(ctx: Ctx, st: Statement, passed: Set<string>): Set<string> {
  for (const i of mayRun(ctx, st)) {
    const s = ctx.statements[i]!;
    if (s.end > st.start) break;
    if (runFrom[i]! >= st.start) continue;
    for (const { name, into } of (keptNames[i] ??= keptNamesIn(ctx, s)))
      if (!into) passed.add(name);
      else if (passed.has(name)) for (const holder of into) passed.add(holder);
      else if (into.some((holder) => passed.has(holder))) passed.add(name);
  }
  return passed;
}

/**
 * From where what statement `i` puts where counts (holdersOf): a `def`
 * from the first mention of its name by another statement, since its body
 * cannot have run before (a decorator does not run it); any other
 * statement, a `class` among them, from its start. A module's test
 * functions and command handlers are most of its text, and are never
 * called in it. Asked of statements already read (their names are bound),
 * and kept.
 */
function runsFrom(ctx: Ctx, s: Statement, i: number): number {
  const known = runFrom[i];
  if (known !== undefined) return known;
  let from = s.start;
  if (
    (s.kind === 'definition' || s.kind === 'decorated') &&
    typeof s.binds === 'string' &&
    isAsciiName(s.binds) &&
    !definesClass(ctx.text, s)
  ) {
    from = NEVER;
    for (const at of wordsOf(ctx).get(s.binds) ?? [])
      if (at < s.start || at >= s.end) {
        from = Math.max(s.start, at);
        break;
      }
  }
  return (runFrom[i] = from);
}
const runFrom: number[] = [];
const NEVER = Number.MAX_SAFE_INTEGER;

/** Whether `s` (a definition, decorated or not) is a `class`, whose body Python runs at once. */
function definesClass(text: string, s: Statement): boolean {
  return definitionOf(text, s)?.isClass === true;
}

/** The `def` or `class` head of `s`, past its decorators (whose strings may hold either word). */
function definitionOf(text: string, s: Statement): DefinitionHead | undefined {
  const at = skipDecorators(text, s);
  return at < s.end ? definitionHeadAt(text, at, s.end) : undefined;
}

/**
 * The statements before `st` that may run at all (runsFrom), in order: a
 * `def` never mentioned elsewhere is not among them, so a module of a
 * thousand such functions is not read a thousand times over.
 */
function mayRun(ctx: Ctx, st: Statement): readonly number[] {
  for (; classified < ctx.statements.length && ctx.statements[classified]!.end <= st.start; classified++)
    if (runsFrom(ctx, ctx.statements[classified]!, classified) !== NEVER) runnable.push(classified);
  return runnable;
}
const runnable: number[] = [];
let classified = 0;

/**
 * Where each ASCII name is written in the module (forEachAsciiName's rule),
 * in order: built at the first question, once the module has Tasks.
 */
function wordsOf(ctx: Ctx): Map<string, number[]> {
  if (wordsAt) return wordsAt;
  const words = new Map<string, number[]>();
  forEachAsciiName(ctx.text, { start: 0, end: ctx.text.length }, (name, at) => {
    const offsets = words.get(name);
    if (offsets) offsets.push(at);
    else words.set(name, [at]);
  });
  return (wordsAt = words);
}
let wordsAt: Map<string, number[]> | undefined;

/** Each mention in `s` of an ASCII name (as asciiNamesIn finds them) put into something (keptIn), and what. */
function keptNamesIn(ctx: Ctx, s: Statement): { name: string; into: readonly string[] | undefined }[] {
  const kept: { name: string; into: readonly string[] | undefined }[] = [];
  forEachKept(ctx.root, ctx.text, s, (name, into) => kept.push({ name, into }));
  return kept;
}
/** What each statement puts where (keptNamesIn), found once a module as holdersOf asks. */
const keptNames: { name: string; into: readonly string[] | undefined }[][] = [];

/** An argument that holds nothing: a number, a string, or a constant. */
const LITERAL = /^(?:[\d.'"]|[rRbBfFuU]{1,2}['"]|(?:None|True|False)$)/;

function noteGiven(call: CallFacts, callee: readonly string[]): void {
  const callees = givenTasks.get(call);
  if (!callees) givenTasks.set(call, [callee]);
  else if (!callees.includes(callee)) callees.push(callee);
}

/**
 * The names a call that forEachPassed reports starts with: imports from
 * outside hud and this module's functions that set verifiers. Most
 * statements mention none, and are not searched for Tasks passed.
 */
const passTargets: string[] = [];

export function notePassTargets(ctx: Ctx): void {
  passTargets.length = 0;
  passTargetAt.length = 0;
  passTargetsFound = false;
  verifyingDefs.length = 0;
  for (const i of ctx.facts.imports)
    if (!isHudModule(i.module) && !passTargets.includes(i.local)) passTargets.push(i.local);
  // Before the statements are read: the name from the text (the `def` after any decorators).
  if (setsVerifierIn(ctx.text, { start: 0, end: ctx.text.length }))
    for (const def of ctx.statements)
      if (setsVerifierInDefinition(ctx.text, def)) {
        verifyingDefs.push(def);
        const head = definitionOf(ctx.text, def);
        if (head) passTargets.push(ctx.text.slice(head.nameAt, head.nameEnd));
      }
}

/** The module's `def`s and `class`es whose body sets a verifier, in order (notePassTargets, for calleeKind). */
const verifyingDefs: Statement[] = [];

/** Where the names of passTargets are written, in order: found at the first question (passTargetOffsets). */
const passTargetAt: number[] = [];
let passTargetsFound = false;

function passTargetOffsets(ctx: Ctx): readonly number[] {
  if (!passTargetsFound) {
    // A search per name: a module imports few, and most are short of Tasks and never get here.
    const { text } = ctx;
    for (const name of passTargets)
      for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + name.length))
        if (!isWordCode(text.charCodeAt(at + name.length)) && !isNameOrDot(text.charCodeAt(at - 1)))
          passTargetAt.push(at);
    // One name's offsets come in order already; several names' interleave.
    if (passTargets.length > 1) passTargetAt.sort((a, b) => a - b);
    passTargetsFound = true;
  }
  return passTargetAt;
}

const isNameOrDot = (code: number) => code === 46 || isWordCode(code);

function mentionsPassTarget(ctx: Ctx, st: Statement): boolean {
  return occursIn(passTargetOffsets(ctx), st);
}

/** Whether `st` mentions a name holding a known Task, or a tuple or list of them, or one that may still hold one. */
function mentionsTasks(ctx: Ctx, st: Statement): boolean {
  for (const name of ctx.taskOf.keys()) if (mentionedIn(ctx.text, name, st)) return true;
  // The elements of a tuple or list, and tasks under names taskOf no longer follows.
  let checked: string | undefined;
  for (const t of ctx.facts.tasks)
    if (t.name !== checked && !ctx.taskOf.has(t.name)) {
      checked = t.name;
      if (mentionedIn(ctx.text, t.name, st)) return true;
    }
  return false;
}

/**
 * Calls `visit` for each argument of a call in `st` that is a name
 * `passes` accepts, passed whole (positionally or by keyword), when the
 * callee is imported from a module other than hud's (the linker may ask
 * it) or is a function of this module whose body sets a verifier; `visit`
 * returns true to stop.
 */
function forEachPassed(
  ctx: Ctx,
  st: Span,
  passes: (name: string) => boolean,
  visit: (name: string, callee: readonly string[], kind: 'imported' | 'verifying') => boolean,
): void {
  const { text } = ctx;
  // Only a call whose callee starts with one of passTargets can be one: each of their mentions is tried.
  const offsets = passTargetOffsets(ctx);
  for (let i = firstAtOrPast(offsets, st.start); i < offsets.length && offsets[i]! < st.end; i++) {
    const at = offsets[i]!;
    if (text.charCodeAt(trimEnd(text, st.start, at) - 1) === 46 /* . */) continue; // `a . b(`: `b` is an attribute
    CALLED.lastIndex = at;
    const m = CALLED.exec(text);
    if (!m || m.index + m[0].length > st.end) continue;
    const callee = internDotted(m[1]!);
    const kind = calleeKind(ctx, callee);
    if (!kind) continue;
    const open = at + m[0].length - 1;
    const close = matchBracket(text, open, st.end);
    if (close < 0) continue;
    for (const arg of splitTopLevel(text, open + 1, close)) {
      const value = keywordValueAt(text, arg.start, arg.end);
      const name = text.slice(value < 0 ? arg.start : value, arg.end);
      if (passes(name) && visit(name, callee, kind)) return;
    }
  }
}

/** What forEachPassed asks of a callee: imported from outside hud, or a function of this module setting verifiers. */
function calleeKind(ctx: Ctx, callee: readonly string[]): 'imported' | 'verifying' | undefined {
  if (imported.has(callee[0]!)) return hudImport(ctx.facts, callee[0]!) ? undefined : 'imported';
  if (callee.length > 1) return undefined;
  // Their names are bound as the statements are read: a `def` below the call does not count yet.
  for (const def of verifyingDefs) if (def.binds === callee[0]) return 'verifying';
  return undefined;
}
/** A called name, dotted or not, as written before its `(`, read where a name of passTargets starts. */
const CALLED = /([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*)\s*\(/y;

/** Whether `.verifier` is written in `span` of the module being read (a `def`'s body, a statement, the module). */
function setsVerifierIn(text: string, span: Span): boolean {
  if (verifierAtText !== text) {
    verifierAtText = text;
    verifierAt.length = 0;
    pushOffsets(text, '.verifier', verifierAt);
  }
  return occursIn(verifierAt, span);
}

/** Whether `st` is a `def` or `class` (decorated or not) whose body sets a verifier. */
function setsVerifierInDefinition(text: string, st: Statement): boolean {
  return (st.kind === 'definition' || st.kind === 'decorated') && setsVerifierIn(text, st);
}

/** Where `.verifier` is written in the module being read: searched once per module, not once per `def`. */
const verifierAt: number[] = [];
let verifierAtText = '';

function pushOffsets(text: string, word: string, into: number[]): void {
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + word.length)) into.push(at);
}

/** Whether one of `offsets` (in increasing order) falls in `span`: asked of every statement, so a binary search. */
function occursIn(offsets: readonly number[], span: Span): boolean {
  const i = firstAtOrPast(offsets, span.start);
  return i < offsets.length && offsets[i]! < span.end;
}

/** The index of the first of `offsets` (in increasing order) at or past `at`: a binary search. */
function firstAtOrPast(offsets: readonly number[], at: number): number {
  let lo = 0;
  let hi = offsets.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (offsets[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
/** Whether `local` is bound by an import of `hud` or its modules (which set no verifier on what they are passed). */
function hudImport(facts: PythonFacts, local: string): boolean {
  for (const i of facts.imports) if (i.local === local) return isHudModule(i.module);
  return false;
}

/** PythonFacts.verifyingDefinitions: the plain definitions whose body sets a verifier. */
function verifyingDefinitions(facts: PythonFacts, statements: readonly Statement[], text: string): void {
  for (const st of statements) {
    const name = st.binds;
    if (typeof name === 'string' && setsVerifierInDefinition(text, st) && facts.plainDefinitions.includes(name))
      (facts.verifyingDefinitions ??= []).push(name);
  }
}

/** Lists passed whole to another module's function (passedToVerifyingFunction): where bound, and the callee. */
const givenLists: { statement: number; callee: readonly string[] }[] = [];

/** Tasks passed whole to a function of another module (notePassedTasks): their call, the callees. */
const givenTasks = new Map<CallFacts, (readonly string[])[]>();

/**
 * Marks the Tasks passed to functions of other modules, themselves
 * (givenTasks) or in a list (givenLists), with those functions
 * (TaskCandidate.givenTo).
 */
function markGiven(facts: PythonFacts): void {
  for (let i = 0; givenLists.length && i < facts.tasks.length; i++) {
    const t = facts.tasks[i]!;
    if (t.index === undefined) continue;
    for (const g of givenLists) if (g.statement === statementOfTask[i]) noteGiven(t.call, g.callee);
  }
  // A list item naming a Task, or a second name for it, shares its call: each of them is the passed Task.
  for (const t of facts.tasks) {
    const callees = givenTasks.get(t.call);
    if (callees) t.givenTo = callees;
  }
}

/** `name.verifier = ...` or `name[...].verifier = ...` (not `==`), the target captured. */
const SETS_VERIFIER = /(?<![\w.])([A-Za-z_]\w*(?:\s*\[[^\]\n]*\])?)\s*\.\s*verifier\s*=(?!=)/g;

/**
 * Binding statements of known lists that something may reorder or shrink
 * after (`tasks.insert(0, t)`, `tasks.pop()`, `del tasks[0]`,
 * `tasks[0] = t`, `shuffle(tasks)`): which task is at which index is then
 * known only by running the module, so the index lists none of their items.
 */
const reorderedLists: number[] = [];

function reorders(name: string): RegExp {
  return (
    reorderPatterns.get(name) ??
    reorderPatterns.add(
      name,
      new RegExp(
        String.raw`(?<![\w.])${name}\s*(?:\.\s*(?:insert|pop|remove|clear|sort|reverse)\s*\(|\[[^\]]*\]\s*=(?!=)|\*=)` +
          String.raw`|\bdel\s+${name}\b|\bshuffle\s*\(\s*${name}\s*\)`,
      ),
    )
  );
}
const reorderPatterns = new BoundedCache<string, RegExp>(1000);

/**
 * Binding statements of known lists whose items a statement the index does
 * not read may give a verifier (mayGiveVerifiers); also in reorderedLists.
 * The Tasks they hold are listed under no other name either.
 */
const verifiedLists: number[] = [];

/** The calls of Tasks whose verifier only running the module tells (noteVerifiersSet, verifiedLists). */
const unknowableCalls = new Set<CallFacts>();

/**
 * Lists none of the elements of reordered lists, nor, under any name, a
 * Task whose verifier is unknowable (TaskCandidate.unlisted): a list item
 * or a second name holding it shares its call (TaskCandidate.sharedCall).
 */
function dropUnknowable(facts: PythonFacts): void {
  const reordered = (i: number) => facts.tasks[i]!.index !== undefined && reorderedLists.includes(statementOfTask[i]!);
  for (let i = 0; verifiedLists.length && i < facts.tasks.length; i++) {
    const t = facts.tasks[i]!;
    if (t.index !== undefined && verifiedLists.includes(statementOfTask[i]!)) unknowableCalls.add(t.call);
  }
  // A verifier set through a reordered list's index (`tasks[1].verifier = ...`, or a verifier loop read that way)
  // may have reached any of its items, which other names may still hold (a loop's target, `b` in `[a, b]`).
  if (reorderedLists.length) {
    const dropped = new Set<CallFacts>();
    const byIndex = facts.verifierAssignments.filter((a) => a.index !== undefined);
    for (let i = 0; i < facts.tasks.length; i++) {
      const t = facts.tasks[i]!;
      if (reordered(i) && byIndex.some((a) => a.target === t.name)) dropped.add(t.call);
    }
    for (let i = 0; i < facts.tasks.length; i++)
      if (!reordered(i) && dropped.has(facts.tasks[i]!.call)) unknowableCalls.add(facts.tasks[i]!.call);
  }
  let kept = 0;
  for (let i = 0; i < facts.tasks.length; i++) {
    const t = facts.tasks[i]!;
    if (unknowableCalls.has(t.call)) t.unlisted = true;
    else if (reordered(i)) continue;
    facts.tasks[kept] = t;
    statementOfTask[kept++] = statementOfTask[i]!;
  }
  facts.tasks.length = kept;
  statementOfTask.length = kept;
}

/**
 * Forgets the module read: after its extraction (settleVerifierReach), and
 * before the next one, in case an extraction threw half-way. Each of the
 * lists above is one module's, and its text is not kept past it.
 */
export function forgetVerifierReach(): void {
  reorderedLists.length = 0;
  verifiedLists.length = 0;
  if (unknowableCalls.size) unknowableCalls.clear();
  givenLists.length = 0;
  keptNames.length = 0;
  verifyingDefs.length = 0;
  wordsAt = undefined;
  runFrom.length = 0;
  runnable.length = 0;
  classified = 0;
  if (givenTasks.size) givenTasks.clear();
  verifierAtText = '';
}

/**
 * A statement the index does not read that names the known `list` (`source`
 * its text): the list's items are noted when it may give them a verifier or
 * reorder them (true), which adding at its end does not.
 */
export function noteListTouched(ctx: Ctx, st: Statement, source: string, list: KnownList): boolean {
  if (mayGiveVerifiers(ctx, st, source, list)) {
    reorderedLists.push(list.statement);
    verifiedLists.push(list.statement);
  } else if (list.names.some((n) => reorders(n).test(source) || mayChange(ctx, st, n)))
    reorderedLists.push(list.statement);
  else return false;
  return true;
}

/**
 * A statement that reaches `list` through a name holding it (listTracking.ts,
 * listHolders): it may reorder it, and, when it sets a verifier, give its
 * items one.
 */
export function noteListReached(ctx: Ctx, st: Statement, list: KnownList): void {
  reorderedLists.push(list.statement);
  if (setsVerifierIn(ctx.text, st)) verifiedLists.push(list.statement);
}

/**
 * Whether `st` mentions the list `name` anywhere it may change it or give
 * another name a hold on it (`other = tasks`, `{"t": tasks}`,
 * `globals()["tasks"]`; readOnlyMention.ts, leavesListAlone).
 */
function mayChange(ctx: Ctx, st: Statement, name: string): boolean {
  // A whole item of the display the statement binds (`b = [b, x]`) is held as heldAsItem (listTracking.ts) holds it.
  const items = st.parsed?.kind === 'name' ? st.parsed.items : undefined;
  const leaves = (at: number, end: number) =>
    items?.some((i) => i.start === at && i.end === end) ||
    notAMention(at, end) ||
    growsOnly(ctx.root, at, end) ||
    (leavesListAlone(ctx.root, at, end) && !changedBy(ctx, passedTo(ctx.root, at, end)));
  return mentionedIn(ctx.text, name, st, -1, (at) => leaves(at, at + name.length));
}

/**
 * Whether `callee` is a function of this module whose body may reorder or
 * shrink a list it is given (`def drop_first(ts): ts.pop(0)`): any such
 * step in its body counts, whatever it is done to. A function of another
 * module is not asked.
 */
function changedBy(ctx: Ctx, callee: string | undefined): boolean {
  if (callee === undefined) return false;
  for (const def of ctx.statements)
    if (def.binds === callee && (def.kind === 'definition' || def.kind === 'decorated')) {
      CHANGES_A_LIST.lastIndex = def.start;
      const m = CHANGES_A_LIST.exec(ctx.text);
      if (m && m.index < def.end) return true;
    }
  return false;
}
/** A step that may reorder or shrink a list, on anything (reorders, without the name). */
const CHANGES_A_LIST =
  /\.\s*(?:insert|pop|remove|clear|sort|reverse)\s*\(|\bdel\b|\]\s*=(?!=)|\*=|\bshuffle\s*\(|\b(?:__)?setitem\b/g;

/**
 * After the module's statements: takes the Tasks noted above out of the
 * listing, marks those given to other modules' functions, and says which of
 * the module's own functions set verifiers (PythonFacts.verifyingDefinitions).
 */
export function settleVerifierReach(facts: PythonFacts, statements: readonly Statement[], text: string): void {
  if (reorderedLists.length || unknowableCalls.size) dropUnknowable(facts);
  if (givenLists.length || givenTasks.size) markGiven(facts);
  if (setsVerifierIn(text, { start: 0, end: text.length })) verifyingDefinitions(facts, statements, text);
  forgetVerifierReach();
}
