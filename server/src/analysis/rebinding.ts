/**
 * A module-level name bound twice holds its last value once the module has
 * run, and that is what the SDK's discovery finds (server/README.md, "Names bound more
 * than once"). So of the task candidates only those of a
 * name's last binding are tasks, a `task.verifier = ...` made before `task`
 * is bound again sets the verifier of an object nobody discovers, and a
 * verifier given by name is the value that name had where it is used. The
 * calls of what was bound over still run on import, so they are kept apart
 * for their argument checks.
 *
 * Statements are numbered in module order, each with the names it binds.
 * Unless some name is bound twice this is one pass over them, with no map.
 */
import type { PythonFacts, ShadowedCall, TaskCandidate, VerifierValue } from './facts';

/** The names one module-level statement binds (`from m import a, b` binds two). */
export type Binds = string | readonly string[] | undefined;

export function bindsName(binds: Binds, name: string): boolean {
  return typeof binds === 'string' ? binds === name : !!binds?.includes(name);
}

/** Every binding of the module being read, in order, and its statement; shared by every call (one module at a time). */
const boundNames: string[] = [];
const boundAt: number[] = [];
/** Statement number of each name's last binding, made only when some name is bound twice. */
const lastBinding = new Map<string, number>();

/** Whether a name repeats; names are interned, so a few dozen compare faster than they hash. */
function boundTwice(names: readonly string[]): boolean {
  if (names.length > 32) return new Set(names).size < names.length;
  for (let i = 1; i < names.length; i++) for (let j = 0; j < i; j++) if (names[i] === names[j]) return true;
  return false;
}

/**
 * Applies last-binding-wins to `facts`. `statementOfTask[i]` is the statement
 * that made `facts.tasks[i]`, `statementOfAssignment[i]` the one that made
 * `facts.verifierAssignments[i]`.
 */
export function applyRebinding(
  facts: PythonFacts,
  statements: readonly { binds: Binds }[],
  statementOfTask: readonly number[],
  statementOfAssignment: readonly number[],
): void {
  boundNames.length = 0;
  boundAt.length = 0;
  for (let k = 0; k < statements.length; k++) {
    const b = statements[k]!.binds;
    if (typeof b === 'string') {
      boundNames.push(b);
      boundAt.push(k);
    } else if (b)
      for (const name of b) {
        boundNames.push(name);
        boundAt.push(k);
      }
  }
  if (!boundTwice(boundNames)) return;
  lastBinding.clear();
  for (let i = 0; i < boundNames.length; i++) lastBinding.set(boundNames[i]!, boundAt[i]!);

  /**
   * The task `name` (or its element `index`) held at statement `at` (its binding before it), and that
   * binding's statement (-1: none).
   */
  const heldAt = (name: string, at: number, index?: number): { bound: number; task: TaskCandidate | undefined } => {
    let bound = -1;
    for (let k = at - 1; k >= 0 && bound < 0; k--) if (bindsName(statements[k]!.binds, name)) bound = k;
    const task = facts.tasks.find((t, i) => statementOfTask[i] === bound && t.name === name && t.index === index);
    return { bound, task };
  };
  // The call a verifier named `name` had at statement `at`, when the name is bound again later.
  const valueAt = (value: VerifierValue, at: number): VerifierValue => {
    if (value.kind !== 'name' || (lastBinding.get(value.name) ?? -1) < at) return value;
    const { bound, task } = heldAt(value.name, at);
    if (task) return { kind: 'call', call: task.call, range: value.range };
    // Bound there to something else (None, a list, an import): what it held is not a task this module made.
    return bound >= 0 ? { kind: 'opaque', range: value.range } : value;
  };
  facts.verifierAssignments.forEach((a, i) => {
    a.value = valueAt(a.value, statementOfAssignment[i]!);
  });
  facts.tasks.forEach((t, i) => {
    const explicit = t.call.explicit;
    if (explicit?.verifier) explicit.verifier = valueAt(explicit.verifier, statementOfTask[i]!);
  });

  const kept = facts.tasks.filter((t, i) => lastBinding.get(t.name) === statementOfTask[i]);
  // Calls a kept task still holds (maybe under another name: `a = b = solve()`), or already reported shadowed.
  const accounted = new Set(kept.map((t) => t.call));
  // Their calls still run when the module is imported, and a bad argument still fails the import.
  const shadowed: ShadowedCall[] = [];
  for (const t of facts.tasks) {
    if (accounted.has(t.call)) continue;
    if (t.repeated || t.call.echo) continue; // the first element of its comprehension, or a factory's first use
    accounted.add(t.call); // reported once, however many names held it
    shadowed.push({ call: t.call, role: 'task' });
    const verifier = t.call.explicit?.verifier ?? t.call.verifier;
    if (verifier?.kind === 'call') shadowed.push({ call: verifier.call, role: 'verifier' });
  }
  facts.verifierAssignments = facts.verifierAssignments.filter((a, i) => {
    const at = statementOfAssignment[i]!;
    if ((lastBinding.get(a.target) ?? -1) <= at) return true;
    // The name was bound again, but the object it held then may live on under another name.
    const held = heldAt(a.target, at, a.index).task;
    const alias = held && kept.find((t) => t.call === held.call);
    if (alias) {
      a.target = alias.name;
      if (alias.index === undefined) delete a.index;
      else a.index = alias.index;
      return true;
    }
    if (a.value.kind === 'call') shadowed.push({ call: a.value.call, role: 'verifier' });
    return false;
  });
  facts.tasks = kept;
  if (shadowed.length) facts.shadowedCalls = shadowed;
}
