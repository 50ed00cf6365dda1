/**
 * Resolves names the way Python imports would, over the facts of workspace
 * files only (no code runs). Every file path the resolver looks at, found or
 * not, is recorded as a dependency, so creating, editing or deleting any of
 * them re-links the files that asked.
 */
import { basename, dirname, join, sep } from 'node:path';
import type {
  EnvironmentFacts,
  FactoryFacts,
  FileFacts,
  ImportBinding,
  PythonFacts,
  TaskCandidate,
  TemplateFacts,
} from './facts';
import { isUnder } from './paths';

export type Resolved =
  | { kind: 'template'; path: string; template: TemplateFacts; env: string }
  | { kind: 'task'; path: string; task: TaskCandidate }
  | { kind: 'module'; path: string }
  | { kind: 'environment'; path: string; env: EnvironmentFacts }
  /** A function that makes a task (factories.ts): a call of it is that task. */
  | { kind: 'factory'; path: string; factory: FactoryFacts }
  /**
   * Defined, but not something the index understands (a function, a list...);
   * `setsVerifiers`: a function whose body sets a verifier (PythonFacts.verifyingDefinitions).
   */
  | { kind: 'other'; setsVerifiers?: true }
  /** Bound to a value only running the module tells (what a function returns, a literal...). */
  | { kind: 'value' }
  /** Comes from outside the workspace (an installed package): nothing can be said. */
  | { kind: 'external' }
  | { kind: 'unknown' };

export interface FactsLookup {
  facts(path: string): FileFacts | undefined;
}

const MAX_DEPTH = 12;

const OTHER: Resolved = Object.freeze({ kind: 'other' });
const VALUE: Resolved = Object.freeze({ kind: 'value' });
const VERIFYING: Resolved = Object.freeze({ kind: 'other', setsVerifiers: true });

/** What a module binds to one name, the first of each kind in the order lookup() asks. */
interface Bound {
  template?: TemplateFacts;
  /** The first task bound to the name itself (not an element of a list). */
  task?: TaskCandidate;
  /** The name holds a list or Taskset of tasks. */
  taskList?: boolean;
  definition?: boolean;
  setsVerifiers?: boolean;
  factory?: FactoryFacts;
  environment?: EnvironmentFacts;
  value?: boolean;
  binding?: ImportBinding;
}

/**
 * Modules with more names than this get a map of them, built once per facts
 * object: lookup() is asked once per task, so scanning the lists made a
 * module of 20,000 generated tasks take seconds to link (quadratic). Smaller
 * modules are scanned, which allocates nothing.
 */
const NAME_MAP_FROM = 64;
const nameMaps = new WeakMap<PythonFacts, Map<string, Bound>>();

function nameMap(facts: PythonFacts): Map<string, Bound> | undefined {
  const size =
    facts.templates.length +
    facts.tasks.length +
    facts.plainDefinitions.length +
    facts.environments.length +
    facts.imports.length;
  if (size <= NAME_MAP_FROM) return undefined;
  let map = nameMaps.get(facts);
  if (map) return map;
  map = new Map();
  const at = (name: string): Bound => {
    let b = map.get(name);
    if (!b) map.set(name, (b = {}));
    return b;
  };
  for (const t of facts.templates) at(t.functionName).template ??= t;
  for (const t of facts.tasks) {
    const b = at(t.name);
    if (t.index !== undefined) b.taskList = true;
    else b.task ??= t;
  }
  for (const d of facts.plainDefinitions) at(d).definition = true;
  for (const d of facts.verifyingDefinitions ?? []) at(d).setsVerifiers = true;
  for (const f of facts.factories ?? []) at(f.name).factory ??= f;
  for (const e of facts.environments) at(e.variable).environment ??= e;
  for (const v of facts.otherBindings ?? []) at(v).value = true;
  for (const i of facts.imports) at(i.local).binding ??= i;
  nameMaps.set(facts, map);
  return map;
}

/**
 * Module resolutions shared by the resolvers of one linking pass, during
 * which no file's facts change: keyed by the importing folder and the module
 * name, each with every path it probed (a hit still records them as deps).
 */
export type ModuleCache = Map<string, { probed: string[]; found: string | undefined }>;

export class Resolver {
  constructor(
    private readonly files: FactsLookup,
    private readonly roots: readonly string[],
    readonly deps: Set<string>,
    private readonly modules?: ModuleCache,
  ) {}

  pythonFacts(path: string): PythonFacts | undefined {
    return this.python(path);
  }

  private python(path: string): PythonFacts | undefined {
    this.deps.add(path);
    const f = this.files.facts(path);
    return f?.kind === 'python' ? f : undefined;
  }

  /** The workspace file of a module, or undefined when it lives elsewhere. */
  resolveModule(fromPath: string, module: string): string | undefined {
    if (!this.modules) return this.findModule(fromPath, module, undefined);
    const key = `${dirname(fromPath)}\0${module}`;
    let entry = this.modules.get(key);
    if (entry) {
      for (const p of entry.probed) this.deps.add(p);
    } else {
      const probed: string[] = [];
      entry = { probed, found: this.findModule(fromPath, module, probed) };
      this.modules.set(key, entry);
    }
    return entry.found;
  }

  private findModule(fromPath: string, module: string, probed: string[] | undefined): string | undefined {
    const dots = /^\.*/.exec(module)![0].length;
    const rest = module.slice(dots).split('.').filter(Boolean);
    const bases: string[] = [];
    if (dots > 0) {
      let base = dirname(fromPath);
      for (let i = 1; i < dots; i++) base = dirname(base);
      bases.push(base);
    } else {
      const root = this.roots.find((r) => isUnder(r, fromPath));
      for (let dir = dirname(fromPath); ; dir = dirname(dir)) {
        bases.push(dir);
        if (!root || dir === root || dirname(dir) === dir) break;
      }
      for (const r of this.roots) if (!bases.includes(r)) bases.push(r);
    }
    for (const base of bases) {
      const stem = rest.length === 0 ? base : base + sep + rest.join(sep);
      const candidates = rest.length === 0 ? [stem + sep + '__init__.py'] : [stem + '.py', stem + sep + '__init__.py'];
      for (const c of candidates) {
        probed?.push(c);
        if (this.python(c)) return c;
      }
    }
    return undefined;
  }

  lookup(path: string, name: string, depth = 0): Resolved {
    if (depth > MAX_DEPTH) return { kind: 'unknown' };
    const facts = this.python(path);
    if (!facts) return { kind: 'unknown' };
    const map = nameMap(facts);
    if (map) return this.lookupIn(path, facts, map.get(name), name, depth);
    // Loops rather than find/some: this runs several times per linked file, and each callback was a closure.
    for (const template of facts.templates)
      if (template.functionName === name)
        return { kind: 'template', path, template, env: this.envName(path, template.envVariable, depth + 1) };
    let namedTask = false;
    for (const task of facts.tasks) {
      if (task.name !== name) continue;
      if (task.index === undefined) return this.taskOrOther(path, task, depth);
      namedTask = true;
    }
    for (const factory of facts.factories ?? []) if (factory.name === name) return { kind: 'factory', path, factory };
    if (facts.plainDefinitions.includes(name)) return facts.verifyingDefinitions?.includes(name) ? VERIFYING : OTHER;
    for (const env of facts.environments) if (env.variable === name) return { kind: 'environment', path, env };
    if (namedTask) return OTHER;
    if (facts.otherBindings?.includes(name)) return VALUE;
    let binding: (typeof facts.imports)[number] | undefined;
    for (const i of facts.imports)
      if (i.local === name) {
        binding = i;
        break;
      }
    return this.imported(path, facts, binding, name, depth);
  }

  /** lookup() in a module with a map of its names: the same answers in the same order. */
  private lookupIn(path: string, facts: PythonFacts, bound: Bound | undefined, name: string, depth: number): Resolved {
    if (bound?.template)
      return {
        kind: 'template',
        path,
        template: bound.template,
        env: this.envName(path, bound.template.envVariable, depth + 1),
      };
    if (bound?.task) return this.taskOrOther(path, bound.task, depth);
    if (bound?.factory) return { kind: 'factory', path, factory: bound.factory };
    if (bound?.definition) return bound.setsVerifiers ? VERIFYING : OTHER;
    if (bound?.environment) return { kind: 'environment', path, env: bound.environment };
    if (bound?.taskList) return OTHER;
    if (bound?.value) return VALUE;
    return this.imported(path, facts, bound?.binding, name, depth);
  }

  /** A name bound to a call: a task if it calls a template or is `Task(env=..., id=...)`, else the call's value. */
  private taskOrOther(path: string, task: TaskCandidate, depth: number): Resolved {
    if (task.call.explicit) return { kind: 'task', path, task };
    return this.callee(path, task.call.callee, depth + 1).kind === 'template' ? { kind: 'task', path, task } : VALUE;
  }

  /** What `name` is through the module's imports: its own binding, else a star import. */
  private imported(
    path: string,
    facts: PythonFacts,
    binding: ImportBinding | undefined,
    name: string,
    depth: number,
  ): Resolved {
    if (binding) {
      const mod = this.resolveModule(path, binding.module);
      if (binding.name === undefined) return mod ? { kind: 'module', path: mod } : { kind: 'external' };
      if (!mod) return { kind: 'external' };
      const found = this.lookup(mod, binding.name, depth + 1);
      if (found.kind !== 'unknown') return found;
      return this.submodule(mod, binding.name) ?? found;
    }
    for (const star of facts.imports) {
      if (star.name !== '*') continue;
      const mod = this.resolveModule(path, star.module);
      if (!mod) return { kind: 'external' };
      const found = this.lookup(mod, name, depth + 1);
      if (found.kind !== 'unknown') return found;
    }
    return { kind: 'unknown' };
  }

  /** `from pkg import mod` / `pkg.mod` where pkg is a package's __init__.py. */
  private submodule(initPath: string, name: string): Resolved | undefined {
    if (basename(initPath) !== '__init__.py') return undefined;
    const dir = dirname(initPath);
    for (const c of [join(dir, `${name}.py`), join(dir, name, '__init__.py')])
      if (this.python(c)) return { kind: 'module', path: c };
    return undefined;
  }

  /** Resolves `a`, `mod.a`, `pkg.mod.a` written in `path`. */
  callee(path: string, parts: readonly string[], depth = 0): Resolved {
    let r: Resolved | undefined;
    let used = 1;
    // `import a.b` then `a.b.f()`: the dotted import binds the whole prefix.
    const facts = parts.length > 2 ? this.python(path) : undefined;
    for (let n = parts.length - 1; facts && n >= 2 && !r; n--) {
      const prefix = parts.slice(0, n).join('.');
      const binding = facts.imports.find((i) => i.local === prefix && i.name === undefined);
      if (binding) {
        const mod = this.resolveModule(path, binding.module);
        r = mod ? { kind: 'module', path: mod } : { kind: 'external' };
        used = n;
      }
    }
    r ??= this.lookup(path, parts[0]!, depth);
    for (const part of parts.slice(used)) {
      if (r.kind === 'module') {
        const next = this.lookup(r.path, part, depth + 1);
        r = next.kind === 'unknown' ? (this.submodule(r.path, part) ?? next) : next;
      } else if (r.kind === 'external' || r.kind === 'unknown' || r.kind === 'value') {
        return r;
      } else {
        return { kind: 'other' };
      }
    }
    return r;
  }

  /** Name of the environment a template's decorator variable refers to. */
  envName(path: string, variable: string, depth = 0): string {
    const r = this.lookup(path, variable, depth);
    return r.kind === 'environment' ? r.env.name : variable;
  }
}
