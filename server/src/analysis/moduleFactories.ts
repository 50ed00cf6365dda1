/**
 * The module's factories (factories.ts has their shape): which of its
 * plain functions make a task and return it, read before the statements
 * that call them, and what each makes.
 */
import { parseCall, verifierValue } from './callFacts';
import type { FactoryFacts, VerifierValue } from './facts';
import { factoryShape, type FactoryShape } from './factories';
import { intern } from './intern';
import { definitionHeadAt, identifierEnd, isName, keywordValueAt, type Span } from './pyScan';
import type { Ctx, Statement } from './pythonModule';

/**
 * Reads the plain `def` in `st` as a factory when its body makes a task and
 * returns it: `return solve(...)`, or `t = solve(...)`, `t.verifier =
 * check(...)` (or `None`), `return t`. A verifier named by a variable is
 * read when the function runs, so such a function is not read; nor is a
 * name defined twice or bound by an assignment too.
 */
export function readFactories(ctx: Ctx, statements: readonly Statement[]): void {
  const { text } = ctx;
  for (const st of statements) {
    if (st.kind !== 'definition') continue;
    // Within the def only (V8 slices without copying): a search from its start could run on to the module's end.
    const shape = text.slice(st.start, st.end).includes('return') ? factoryShape(text, st) : undefined;
    if (shape) readFactory(ctx, st, shape);
  }
  if (!ctx.factories.size) return;
  // `make = other` or a second `def make` anywhere at module level: what a call makes depends on where it is.
  for (const st of statements) {
    let name: string | undefined;
    if (st.kind === 'simple' && keywordValueAt(text, st.start, st.end) >= 0)
      name = text.slice(st.start, identifierEnd(text, st.start, st.end));
    else if (st.kind === 'definition') {
      const head = definitionHeadAt(text, st.start, Math.min(st.end, st.start + 300));
      if (head) name = text.slice(head.nameAt, head.nameEnd);
    }
    if (name !== undefined && ctx.factories.get(name)?.defined !== st.start) ctx.factories.delete(name);
  }
}

/** Reads one factory, when its body makes a task the index can name. */
function readFactory(ctx: Ctx, st: Statement, shape: FactoryShape): void {
  const { text } = ctx;
  const name = shape.name;
  const { returned } = shape;
  let made: Span = returned;
  let verifier: VerifierValue | undefined;
  if (isName(text, returned)) {
    const local = text.slice(returned.start, returned.end);
    const bound = shape.bindings.filter((b) => b.name === local);
    if (bound.length !== 1) return;
    made = bound[0]!.value;
    for (const v of shape.verifiers) {
      if (v.target !== local) continue;
      if (v.line.start < made.end) return; // set before the task is made
      const value = verifierValue(ctx, v.value);
      if (value?.kind !== 'call' && value?.kind !== 'none') return;
      verifier = value.kind === 'none' ? undefined : value;
    }
  }
  const call = parseCall(ctx, made);
  if (call) ctx.factories.set(name, { defined: st.start, call, verifier, used: false });
}

/** The module's factories as its facts keep them, for modules that import them; undefined when it has none. */
export function factoryFacts(ctx: Ctx): FactoryFacts[] | undefined {
  if (!ctx.factories.size) return undefined;
  const out: FactoryFacts[] = [];
  for (const [name, f] of ctx.factories) {
    const kept: FactoryFacts = { name: intern(name), call: f.call.facts };
    if (f.verifier) kept.verifier = f.verifier;
    out.push(kept);
  }
  return out;
}
