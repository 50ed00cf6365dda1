/**
 * What the module's names hold as its statements are read: the plain task
 * each name holds, the names a loop last bound, which statement made each
 * task and verifier assignment, and what a verifier named by a variable
 * stands for where it is read.
 */
import { namesAssignedIn } from './blockBindings';
import type { PythonFacts, TaskCandidate, VerifierValue } from './facts';
import { mentionedInCode } from './knownValues';
import { headIs } from './pyScan';
import { emptied, statementOfAssignment, statementOfTask, type Ctx, type Statement } from './pythonModule';
import { noteVerifiersSet } from './verifierReach';
import { writtenBefore } from './writtenNames';

export const COMPOUND_HEAD = /(?:if|for|while|try|with|match|async)\b/y;

/** `names`, and the names of the module's tasks the compound statement `st` assigns in its blocks. */
export function withTaskNamesAssigned(
  facts: PythonFacts,
  text: string,
  st: Statement,
  names: string[] | undefined,
): string[] | undefined {
  let out = names;
  for (const name of namesAssignedIn(text, st))
    if (!out?.includes(name) && facts.tasks.some((t) => t.name === name)) (out = out ? [...out] : []).push(name);
  return out;
}

/**
 * Keeps Ctx.taskOf true after statement `st`, whose candidates start at
 * `firstTask`: a name it binds holds the plain task it made for that name, or
 * nothing the index follows. A compound statement (`if`, `for`, `try`,
 * `with`) may bind any name it mentions, which is then no longer known.
 */
export function noteTasksHeld(ctx: Ctx, st: Statement, firstTask: number): void {
  const { taskOf } = ctx;
  const b = st.binds;
  // With every name forgotten (taskOf empty), a task made before may still be reached through its name.
  if (
    (taskOf.size || ctx.facts.tasks.length) &&
    (st.kind === 'other' || (!b && headIs(COMPOUND_HEAD, ctx.text, st.start)) || (st.loop && !st.exact))
  ) {
    noteVerifiersSet(ctx, st);
    for (const name of taskOf.keys()) if (mentionedInCode(ctx.text, name, st)) taskOf.delete(name);
  }
  if (!b) return;
  // Most statements bind one name: no array for it (this runs for every module-level binding).
  if (typeof b === 'string') noteTaskHeld(ctx, b, firstTask);
  else for (const name of b) noteTaskHeld(ctx, name, firstTask);
}

function noteTaskHeld({ taskOf, facts }: Ctx, name: string, firstTask: number): void {
  let made: TaskCandidate | undefined;
  for (let i = firstTask; i < facts.tasks.length; i++) {
    const t = facts.tasks[i]!;
    if (t.index === undefined && t.name === name) made = t;
  }
  if (made) taskOf.set(name, made);
  else taskOf.delete(name);
}

/**
 * Names whose latest module-level binding is a `for` loop's target: what
 * they hold is the last item, known only by running the module.
 */
const loopBound = new Set<string>();

/** Forgets the loop targets of the module read before. */
export function forgetLoopTargets(): void {
  emptied(loopBound);
}

/** Records that statement `st` binds `name`: a verifier named by it follows what it holds (`followed`). */
export function bind(ctx: Ctx, name: string, st: Statement): void {
  ctx.bound.add(name);
  if (st.loop) loopBound.add(name);
  else loopBound.delete(name);
}

/**
 * Gives the tasks made since the last call to `statement` (statementOfTask),
 * and follows the verifiers their new calls name as of offset `at`. A shared
 * call was followed where it was made: what a name held there is its verifier.
 */
export function claimTasks(ctx: Ctx, at: number, statement: number): void {
  const { tasks } = ctx.facts;
  while (statementOfTask.length < tasks.length) {
    const task = tasks[statementOfTask.length]!;
    const explicit = task.call.explicit;
    if (explicit?.verifier && !task.sharedCall) explicit.verifier = followed(ctx, explicit.verifier, at);
    statementOfTask.push(statement);
  }
}

/** Gives the verifier assignments made since the last call to `statement`, following their values as of `at`. */
export function claimAssignments(ctx: Ctx, at: number, statement: number): void {
  const assignments = ctx.facts.verifierAssignments;
  while (statementOfAssignment.length < assignments.length) {
    const a = assignments[statementOfAssignment.length]!;
    a.value = followed(ctx, a.value, at);
    statementOfAssignment.push(statement);
  }
}

/**
 * A verifier named by a variable that no module-level statement above binds:
 * if the name is written above anyway (bound in an `if` or a `try`), the
 * index cannot say what it holds; if it is not, the import fails with
 * NameError, and the name is left for the linker to report.
 */
export function followed(ctx: Ctx, value: VerifierValue, at: number): VerifierValue {
  if (value.kind !== 'name') return value;
  if (loopBound.has(value.name)) return { kind: 'opaque', range: value.range };
  if (ctx.bound.has(value.name) || ctx.bound.has('*')) return value;
  return writtenBefore(ctx.text, value.name, at) >= 0 ? { kind: 'opaque', range: value.range } : value;
}
