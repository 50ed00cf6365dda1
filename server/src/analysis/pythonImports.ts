/**
 * Module-level imports of a Python module as the index reads them: what each
 * statement binds, which of those names are `hud`'s (`Environment`,
 * `Taskset`, `Task`, or one of its modules), and the imports of a `try:`
 * whose body only imports. Part of the extraction (pythonFacts.ts).
 */
import { BoundedCache } from './boundedCache';
import type { ImportBinding, PythonFacts } from './facts';
import { fitted } from './fitted';
import { isHudModule } from './hudModule';
import { intern, ownString } from './intern';
import { skipIndent } from './moduleLayout';
import { expressionEnd, headIs, keywordAt, type Span } from './pyScan';

/** The local names the module being read binds to `hud`'s things, by what each one is. */
export interface HudNames {
  /** Local names bound to the `hud` package or one of its submodules. */
  modules: Set<string>;
  environment: Set<string>;
  taskset: Set<string>;
  task: Set<string>;
}

/** Comments, continuations, parentheses, whitespace other than single spaces: the import needs normalising first. */
const IMPORT_NOISE = /[#\\()]|[^\S ]| {2}/;

/**
 * The imports of a `try:` whose body only imports (`try: from hud import
 * Environment` / `except ImportError: ...`). Where the module runs under the
 * SDK those imports succeed, so the names are bound as the body binds them,
 * and what the clauses after it do on failure never happens. Undefined for
 * any other statement in the body (`pass` and comments aside).
 */
export function tryImports(text: string, st: Span): Span[] | undefined {
  if (!headIs(TRY_HEAD, text, st.start)) return undefined;
  const out: Span[] = [];
  let line = text.indexOf('\n', st.start) + 1;
  while (line > 0 && line < st.end) {
    const first = skipIndent(text, line);
    const c = text.charCodeAt(first);
    if (c === 10 || c === 13 || c === 35 /* # */) {
      line = text.indexOf('\n', first) + 1; // a blank or comment line
      continue;
    }
    if (first === line) break; // column 0: the `except`, `else` or `finally` clause
    let end: number;
    if (keywordAt(text, first, 'import', st.end) || keywordAt(text, first, 'from', st.end)) {
      end = expressionEnd(text, first, st.end);
      if (text.charCodeAt(end) === 59 /* ; */) return undefined; // another statement on its line
      out.push({ start: first, end });
    } else if (headIs(PASS_LINE, text, first)) end = first + 4;
    else return undefined;
    line = text.indexOf('\n', end) + 1;
  }
  return out.length ? out : undefined;
}
const TRY_HEAD = /try[ \t]*:[ \t]*(?:#[^\n]*)?\r?\n/y;
const PASS_LINE = /pass[ \t]*(?:#[^\n]*)?(?:\r?\n|$)/y;

/** What one import statement binds: its bindings, and which of `hud`'s names each one is. */
interface ImportReading {
  importsHud: boolean;
  bindings: readonly ImportBinding[];
  roles: readonly (HudRole | undefined)[];
}

export type HudRole = keyof HudNames;

/**
 * Import statements read before, by their text: the same few lines (`from
 * hud import Environment`, a shared judge module's import) head file after
 * file, and each was parsed again with regular expressions. Their bindings
 * are shared and frozen, like the positions beside them (lines.ts).
 */
const importReadings = new BoundedCache<string, ImportReading>(5000);

export function readImport(source: string, facts: PythonFacts, hud: HudNames): void {
  // The key would otherwise keep the whole file's text alive (intern.ts).
  const reading = importReadings.get(source) ?? importReadings.add(ownString(source), parseImport(source));
  if (reading.importsHud) facts.importsHud = true;
  const { bindings, roles } = reading;
  for (let i = 0; i < bindings.length; i++) {
    const binding = bindings[i]!;
    facts.imports.push(binding);
    const role = roles[i];
    if (role) hud[role].add(binding.local);
  }
}

function parseImport(source: string): ImportReading {
  const bindings: ImportBinding[] = [];
  const roles: (HudRole | undefined)[] = [];
  const bind = (binding: ImportBinding, role: HudRole | undefined) => {
    bindings.push(Object.freeze(binding));
    roles.push(role);
  };
  const reading = (importsHud: boolean): ImportReading => ({ importsHud, bindings: fitted(bindings), roles });
  const clean = IMPORT_NOISE.test(source)
    ? source
        .replace(/#[^\n]*/g, '')
        .replace(/\\\n/g, ' ')
        .replace(/[()]/g, ' ')
        .replace(/\s+/g, ' ')
        .trim()
    : source.trim();
  const from = /^from ([.\w ]+?) import (.+)$/.exec(clean);
  if (from) {
    const module = intern(from[1]!.replace(/\s+/g, ''));
    const isHud = isHudModule(module);
    for (const part of from[2]!.split(',')) {
      const m = /^\s*([A-Za-z_*][\w]*)(?:\s+as\s+([A-Za-z_]\w*))?\s*$/.exec(part);
      if (!m) continue;
      const name = intern(m[1]!);
      const local = m[2] === undefined ? name : intern(m[2]);
      bind({ local, module, name } satisfies ImportBinding, isHud ? hudRole(name) : undefined);
    }
    return reading(isHud);
  }
  const imp = /^import (.+)$/.exec(clean);
  if (!imp) return reading(false);
  let importsHud = false;
  for (const part of imp[1]!.split(',')) {
    const m = /^\s*([A-Za-z_][\w.]*)(?:\s+as\s+([A-Za-z_]\w*))?\s*$/.exec(part);
    if (!m) continue;
    const module = intern(m[1]!);
    const isHud = isHudModule(module);
    if (isHud) importsHud = true;
    if (m[2]) {
      bind({ local: intern(m[2]), module }, isHud ? 'modules' : undefined);
    } else {
      // `import a.b` binds `a`; attribute access walks the rest.
      const head = intern(module.split('.')[0]!);
      bind({ local: head, module: head }, isHud ? 'modules' : undefined);
      if (module !== head) bind({ local: module, module }, undefined);
    }
  }
  return reading(importsHud);
}

/** What a name imported from `hud` (or a module of it) is to the index. */
function hudRole(name: string): HudRole | undefined {
  if (name === 'Environment') return 'environment';
  if (name === 'Taskset') return 'taskset';
  if (name === 'Task') return 'task';
  // `from hud import environment`: a module of hud's, as far as the index tells.
  return name === '*' ? undefined : 'modules';
}

export function isHudName(
  callee: readonly string[] | undefined,
  hud: HudNames,
  set: Set<string>,
  name: string,
): boolean {
  if (!callee) return false;
  if (callee.length === 1) return set.has(callee[0]!);
  return hud.modules.has(callee[0]!) && callee[callee.length - 1] === name;
}
