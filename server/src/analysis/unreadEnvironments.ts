/**
 * Environments a module builds out of the index's sight. The index reads a
 * module's own statements; an `Environment("sessions")` made inside a
 * function (a test's fixture) and its templates are defined only when that
 * function runs. A `Task(env="sessions", id="echo")` in the same module is
 * then no typo, and is not reported as one (linkPython.ts).
 */
import type { PythonFacts } from './facts';
import { intern } from './intern';

/**
 * The names of `Environment(...)` calls with a literal name (under any local name the module binds the class
 * to) beyond the environments the module builds at its top level. Undefined when there are none: most modules.
 */
export function unreadEnvironments(
  text: string,
  classNames: ReadonlySet<string>,
  facts: PythonFacts,
): string[] | undefined {
  const found = new Set<string>();
  // The local names come from import statements: Python identifiers, nothing a pattern must escape.
  for (const cls of classNames) {
    // Cheap refusal first: no more calls than the top-level environments.
    let calls = 0;
    for (let at = text.indexOf(`${cls}(`); at >= 0; at = text.indexOf(`${cls}(`, at + 1)) calls++;
    if (calls <= facts.environments.length) continue;
    const call = new RegExp(
      `(?<![\\w.])${cls}\\(\\s*(?:name\\s*=\\s*)?[rRuU]?(?:"([^"\\\\\\n]*)"|'([^'\\\\\\n]*)')`,
      'g',
    );
    for (const m of text.matchAll(call)) found.add(m[1] ?? m[2]!);
  }
  for (const env of facts.environments) found.delete(env.name);
  return found.size ? [...found].map((n) => intern(n)) : undefined;
}
