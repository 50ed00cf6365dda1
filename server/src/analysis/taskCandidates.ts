/**
 * The task candidates a module's statements make beside plain `name =
 * template(...)`: the elements of a list, the names that share one Task
 * (`a = b = solve()`), and list items that name a Task already made.
 */
import { parseCall } from './callFacts';
import type { CallFacts, PythonFacts, TaskCandidate } from './facts';
import { isName, type Span } from './pyScan';
import type { Ctx } from './pythonModule';

/**
 * Task candidates for the items of list `name`, numbered from `firstIndex`.
 * `period`: the items are a loop body's, one pass after another, so item
 * `i` is item `i - period` made again.
 */
export function pushElements(
  ctx: Ctx,
  items: Span[],
  name: string,
  inTaskset = false,
  firstIndex = 0,
  period = 0,
): void {
  const calls: (CallFacts | undefined)[] = [];
  items.forEach((item, i) => {
    // A name that holds a task puts that very Task in the list: one object, so one call (and one verifier).
    const held = heldTask(ctx, item);
    // A comprehension's elements are one span, repeated (sequenceItems), as are a loop's: read once, and each
    // element gets a call of its own, since a verifier set through `tasks[1]` is that element's alone.
    const source = i > 0 && item === items[i - 1] ? i - 1 : period && i >= period ? i - period : -1;
    const repeated = source >= 0;
    const first = repeated ? calls[source] : undefined;
    const call = held ? held.call : repeated ? first && { ...first } : parseCall(ctx, item)?.facts;
    calls.push(call);
    if (!call) return;
    const task: TaskCandidate = {
      name,
      index: firstIndex + i,
      call,
      range: held ? ctx.lines.rangeAt(item.start, item.end) : call.range,
    };
    if (inTaskset) task.inTaskset = true;
    if (held) task.sharedCall = true;
    else if (repeated) task.repeated = true;
    ctx.facts.tasks.push(task);
  });
}

/** The names of `a = b = ...` other than the first, each once (`a = a = ...` binds `a` once). */
export function uniqueOthers(first: string, more: readonly string[]): string[] {
  return more.filter((name, k) => name !== first && more.indexOf(name) === k);
}

/** Candidates for `names` holding the very objects the candidates [from, to) hold (sharedCall). */
export function shareCandidates(facts: PythonFacts, from: number, to: number, names: readonly string[]): void {
  for (const name of names)
    for (let i = from; i < to; i++) {
      const t = facts.tasks[i]!;
      const copy: TaskCandidate = { name, call: t.call, range: t.range, sharedCall: true };
      if (t.index !== undefined) copy.index = t.index;
      if (t.inTaskset) copy.inTaskset = true;
      facts.tasks.push(copy);
    }
}

/** The plain task a list item names (`suite = [task, ...]`), when the index knows what that name holds. */
export function heldTask(ctx: Ctx, item: Span): TaskCandidate | undefined {
  if (ctx.taskOf.size === 0 || !isName(ctx.text, item)) return undefined;
  return ctx.taskOf.get(ctx.text.slice(item.start, item.end));
}
