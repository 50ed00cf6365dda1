/**
 * Module-level functions that make a task and return it:
 *
 *     def make(level):
 *         t = solve(level=level)
 *         t.verifier = check(expected=str(level))
 *         return t
 *
 * A call of one (`easy = make(1)`, `[make(n) for n in range(3)]`) is the
 * task its body makes, as discovery sees once the module has run. Only the
 * shape is read here: a `def` whose body is an optional docstring, plain
 * bindings, verifiers set on bound names, and a `return` last. What the
 * returned value is (a template call, a name bound to one) is
 * moduleFactories.ts's (server/README.md, "Factories").
 */
import { bindingLine, simpleBody, verifierLine, type BodyBinding, type BodyVerifier } from './listGrowth';
import { definitionHeadAt, keywordAt, matchBracket, scanTo, skipSpaces, skipString, type Span } from './pyScan';

export interface FactoryShape {
  /** The function's name. */
  name: string;
  bindings: BodyBinding[];
  verifiers: BodyVerifier[];
  /** What `return` gives back. */
  returned: Span;
}

/** The plain `def` in `st` when its body has the shape of a task factory; undefined otherwise. */
export function factoryShape(text: string, st: Span): FactoryShape | undefined {
  const head = definitionHeadAt(text, st.start, Math.min(st.end, st.start + 300));
  // `async def` returns a coroutine, `class` makes no task.
  if (!head || head.isAsync || head.isClass || text.charCodeAt(head.end) !== 40 /* ( */) return undefined;
  const close = matchBracket(text, head.end, st.end);
  if (close < 0) return undefined;
  // The `:` after the parameters and any return annotation.
  const colon = scanTo(text, close + 1, st.end, ':');
  if (colon >= st.end || text.charCodeAt(colon) !== 58) return undefined;
  const bindings: BodyBinding[] = [];
  const verifiers: BodyVerifier[] = [];
  let returned: Span | undefined;
  let first = true;
  const body = simpleBody(text, colon + 1, st.end, (from, to) => {
    const docstring = first && isStringLiteral(text, from, to);
    first = false;
    if (docstring) return true;
    // Nothing after the `return` runs.
    if (returned) return false;
    if (keywordAt(text, from, 'return', to)) {
      const at = skipSpaces(text, from + 6, to);
      if (at < to) returned = { start: at, end: to };
      return returned !== undefined;
    }
    const verifier = verifierLine(text, from, to);
    if (verifier) verifiers.push(verifier);
    const binding = verifier ? undefined : bindingLine(text, from, to);
    if (binding) bindings.push(binding);
    return verifier !== undefined || binding !== undefined;
  });
  if (!body || !returned) return undefined;
  return { name: text.slice(head.nameAt, head.nameEnd), bindings, verifiers, returned };
}

function isStringLiteral(text: string, from: number, to: number): boolean {
  const c = text.charCodeAt(from);
  return (c === 34 || c === 39) && skipString(text, from) === to;
}
