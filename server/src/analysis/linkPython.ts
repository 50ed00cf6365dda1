/**
 * Links one Python module: resolves its task calls and verifiers to
 * templates (across modules), builds its part of the index and produces its
 * diagnostics.
 */
import { fitted } from './fitted';
import { intern } from './intern';
import { isHudModule } from './hudModule';
import { sameRange } from './lines';
import type { IndexedTask, IndexedTemplate, IndexedVerifierLink } from '../../../common/lspMessages';
import { checkArgs, positionalParam } from './argsCheck';
import { literalMismatch } from './argTypes';
import type {
  CallFacts,
  ExplicitTask,
  FileProblem,
  LiteralArg,
  PythonFacts,
  Range,
  TaskCandidate,
  TemplateFacts,
  VerifierAssignment,
  VerifierValue,
} from './facts';
import { problem } from './diagnostics';
import type { LinkResult, TemplateRegistry, TemplateUse } from './link';
import type { Resolved, Resolver } from './resolver';
import { checkVerifier, type TemplateSide } from './verifierChecks';
import { duplicateSlugProblems, type SluggedTask } from './duplicateSlugs';

export interface FileIdentity {
  path: string;
  uri: string;
  rel: string;
  uriOf(path: string): string;
  relOf(path: string): string;
}

type Target = TemplateSide & { path: string };

export function linkPython(
  file: FileIdentity,
  facts: PythonFacts,
  resolver: Resolver,
  registry: TemplateRegistry,
): LinkResult {
  const resolve = (call: CallFacts) => resolveTemplate(file, call, resolver, registry);
  const problems: FileProblem[] = [];
  const uses: TemplateUse[] = [];
  const templates = facts.templates.map((t) => indexTemplate(file, t, resolver.envName(file.path, t.envVariable)));
  templateProblems(facts, templates, problems);

  const tasks: IndexedTask[] = [];
  const slugged: SluggedTask[] = [];
  // Most files assign no verifier after the fact: no map for them.
  const byName = facts.verifierAssignments.length ? candidatesByName(facts) : undefined;
  const verifierOf = byName && verifiersByObject(facts, byName);

  /** Verifier values already linked for a task (a loop sets one value on several). */
  let linkedValues: Set<VerifierValue> | undefined;
  for (let c = 0; c < facts.tasks.length; c++) {
    const cand = facts.tasks[c]!;
    const explicit = cand.call.explicit;
    const called = resolve(cand.call);
    // Not a template's call: maybe a factory's, whose body calls one (asked only then: most calls are templates').
    const made = called || explicit ? undefined : importedFactory(file, cand.call, resolver, registry);
    const target = called ?? made?.target;
    if (!target && !explicit) continue;
    const label = labelOf(cand);
    // What a call says is said once: by a comprehension's first element, by the first name holding a Task.
    const echo = cand.repeated || cand.call.echo || (cand.sharedCall && heldEarlier(facts.tasks, c));
    const callProblems = echo ? [] : problems;
    const callUses = echo ? [] : uses;
    // An imported factory's call passes the factory's arguments and names the factory, not the template: the
    // factory's module checks and links the call its body makes.
    if (!made && target) {
      callUses.push(use(cand.call.calleeRange, 'task', target));
      argProblems(cand.call, target.template, callProblems);
    } else if (!made && !facts.unreadEnvironments?.includes(explicit!.env))
      callProblems.push(unknownExplicit(explicit!, cand.call.calleeRange, 'task-unknown-template'));
    // Its call runs and is checked; which verifier it ends with is known only by running the module.
    if (cand.unlisted || (cand.givenTo && givenToVerifying(file, cand.givenTo, resolver))) continue;
    const assigned = verifierOf?.get(cand.call);
    // A later `task.verifier = ...` replaces the one the Task was made with (by `Task(verifier=...)` or a factory).
    const madeWith = explicit?.verifier ?? cand.call.verifier;
    const verifier = assigned ?? (madeWith && { value: madeWith, range: madeWith.range });
    const actorEnv = target?.env ?? explicit!.env;
    // One line of a loop sets the verifier of several tasks: what it says is said once, unless it says it of one.
    const again = assigned !== undefined && (linkedValues ??= new Set()).has(assigned.value);
    if (assigned) linkedValues!.add(assigned.value);
    const verifierProblems = again ? [] : assigned ? problems : callProblems;
    const link = !verifier
      ? made?.verifier
      : linkVerifier(
          file,
          facts,
          { side: target, env: actorEnv },
          verifier,
          resolve,
          resolver,
          verifierProblems,
          again ? [] : assigned ? uses : callUses,
        );
    if (again) for (const p of verifierProblems) if (!problems.some((q) => sameProblem(p, q))) problems.push(p);
    const task: IndexedTask = {
      ref: `${file.rel}::${label}`,
      kind: 'hud',
      label,
      uri: file.uri,
      range: cand.range,
      env: actorEnv,
      templateId: target?.template.id ?? explicit!.id,
    };
    if (target) task.templateUri = file.uriOf(target.path);
    if (link) task.verifier = link;
    tasks.push(task);
    // Which arguments reach the template is the factory's body's: no slug to compare.
    if (!made) slugged.push({ candidate: cand, label, templateId: task.templateId, params: target?.template.params });
  }
  if (slugged.length > 1) duplicateSlugProblems(slugged, problems);
  if (byName) containerVerifierProblems(facts, byName, problems);
  for (const { call, role } of facts.shadowedCalls ?? []) {
    const target = resolve(call);
    if (!target) continue;
    uses.push(use(call.calleeRange, role, target));
    argProblems(call, target.template, problems);
  }
  for (const r of facts.v5Scenarios) {
    problems.push(
      problem(
        'v5-scenario-api',
        r.range,
        `@${r.envVariable}.scenario is the HUD v5 API and does not run on v6 (fix: rename it to @${r.envVariable}.template and make ${r.functionName} an async generator that yields the prompt, then the result)`,
      ),
    );
  }
  for (const p of facts.sdkProblems ?? []) problems.push(p);
  for (const range of facts.serviceAccess) {
    problems.push(
      problem(
        'service-access-docker-socket',
        range,
        'service_access = True mounts the Docker socket into the "main" service: code there controls every container of this Docker daemon (fix: remove it unless the task really needs Docker; HUD Studio asks for consent before running it and refuses it on a remote Docker host)',
      ),
    );
  }
  return { templates, tasks: fitted(tasks), problems: fitted(problems), uses: fitted(uses) };
}

function sameProblem(a: FileProblem, b: FileProblem): boolean {
  return a.code === b.code && a.message === b.message && sameRange(a.range, b.range);
}

/** Whether a candidate listed before `c` holds the same call object. */
function heldEarlier(tasks: readonly TaskCandidate[], c: number): boolean {
  for (let i = 0; i < c; i++) if (tasks[i]!.call === tasks[c]!.call) return true;
  return false;
}

const labelOf = (t: TaskCandidate) => (t.index === undefined ? t.name : intern(`${t.name}[${t.index}]`));

/** Candidates named `name`: all of them in a small module (callers compare names), a map's list in a large one. */
type ByName = (name: string) => readonly TaskCandidate[];

function candidatesByName(facts: PythonFacts): ByName {
  // A scan is quadratic in a module of many tasks and verifier assignments; in a small one it allocates nothing.
  if (facts.tasks.length * facts.verifierAssignments.length <= 1024) return () => facts.tasks;
  const map = new Map<string, TaskCandidate[]>();
  for (const t of facts.tasks) {
    const list = map.get(t.name);
    if (list) list.push(t);
    else map.set(t.name, [t]);
  }
  return (name) => map.get(name) ?? [];
}

/**
 * Verifier assignments by the task object they set: `a = b = solve()` binds
 * two names to one Task (both share the call's facts), so `b.verifier = v`
 * is `a`'s verifier too. Assignments come in module order: the last wins.
 */
function verifiersByObject(facts: PythonFacts, byName: ByName): Map<CallFacts, VerifierAssignment> {
  const out = new Map<CallFacts, VerifierAssignment>();
  for (const a of facts.verifierAssignments)
    for (const t of byName(a.target)) if (t.name === a.target && t.index === a.index) out.set(t.call, a);
  return out;
}

/**
 * `suite.verifier = ...` where `suite` holds a list or Taskset of tasks: a
 * list has no such attribute (the import fails), and a Taskset keeps it
 * without passing it to its tasks.
 */
function containerVerifierProblems(facts: PythonFacts, byName: ByName, out: FileProblem[]): void {
  for (const { target, index, range } of facts.verifierAssignments) {
    if (index !== undefined) continue;
    let element: TaskCandidate | undefined;
    for (const t of byName(target)) {
      if (t.name !== target) continue;
      if (t.index === undefined) {
        element = undefined;
        break;
      }
      element ??= t;
    }
    if (!element) continue;
    const fix = `fix: set it on each task, e.g. \`${target}[0].verifier = ...\`, or on a task before it goes in`;
    out.push(
      element.inTaskset
        ? problem(
            'verifier-on-taskset',
            range,
            `${target} is a Taskset, which keeps this verifier without giving it to any of its tasks, so none of them is verified by it (${fix})`,
          )
        : problem(
            'verifier-on-list',
            range,
            `${target} holds a list of tasks, and a list has no verifier attribute: this line fails the import with AttributeError (${fix})`,
          ),
    );
  }
}

function indexTemplate(file: FileIdentity, t: TemplateFacts, env: string): IndexedTemplate {
  const out: IndexedTemplate = {
    id: t.id,
    env,
    functionName: t.functionName,
    description: t.description,
    uri: file.uri,
    range: t.nameRange,
    params: t.params,
    agentless: t.firstYield?.kind === 'empty',
    resultKeys: t.result?.keys ?? fitted([]),
    readsKeys: distinctKeys(t.readsKeys),
  };
  if (t.broken) out.broken = true;
  if (t.result) out.gradeYieldRange = t.result.range;
  if (t.firstYield?.kind === 'literal') out.promptPreview = t.firstYield.text;
  return out;
}

/** The keys a template reads, each once, in order (no set for the usual one or two). */
function distinctKeys(reads: readonly { key: string }[]): string[] {
  if (reads.length === 0) return fitted([]);
  const out: string[] = [];
  for (const r of reads) if (!out.includes(r.key)) out.push(r.key);
  return fitted(out);
}

function templateProblems(facts: PythonFacts, indexed: IndexedTemplate[], out: FileProblem[]): void {
  const seen = new Map<string, TemplateFacts>();
  facts.templates.forEach((t, i) => {
    const env = indexed[i]!.env;
    const key = `${env}\0${t.id}`;
    const first = seen.get(key);
    if (first) {
      out.push(
        problem(
          'template-duplicate-id',
          t.decoratorRange,
          `environment "${env}" already has a template with id "${t.id}" (${first.functionName}, line ${first.range.start.line + 1}); the SDK rejects the second one (fix: give this template its own id=...)`,
        ),
      );
    } else seen.set(key, t);

    if (t.broken) return;
    if (!t.isAsync || t.yieldCount === 0) {
      const missing =
        !t.isAsync && t.yieldCount === 0
          ? 'is neither async nor a generator'
          : !t.isAsync
            ? 'is not async'
            : 'never yields';
      out.push(
        problem(
          'template-not-async-generator',
          t.nameRange,
          `template ${t.functionName} ${missing}; the SDK raises TypeError for anything but an async generator (fix: write \`async def ${t.functionName}(...)\` that yields the prompt, then the result)`,
        ),
      );
    } else if (t.yieldCount === 1 && !t.yieldInLoop) {
      out.push(
        problem(
          'template-single-yield',
          t.firstYieldRange ?? t.nameRange,
          `template ${t.functionName} yields only once, so it ends without a result and scores 0.0 at best (fix: add a second yield with the result, e.g. \`yield {"score": 1.0}\`)`,
        ),
      );
    }
    for (const c of t.unawaitedCalls ?? []) {
      if (!isCoroutineCall(facts, c.callee)) continue;
      out.push(
        problem(
          'grade-not-awaited',
          c.range,
          `${c.callee.join('.')}(...) is a coroutine: yielding it without \`await\` yields the coroutine, not a grade, and grading fails (fix: \`yield await ${c.callee.join('.')}(...)\`)`,
        ),
      );
    }
    if (t.result?.scoreProblem) {
      out.push(
        problem(
          'result-missing-score',
          t.result.range,
          t.result.scoreProblem === 'missing'
            ? `the result dict of ${t.functionName} has no "score", so grading fails (fix: add "score": <number between 0 and 1>)`
            : `the result dict of ${t.functionName} has a "score" that is not a number, so grading fails (fix: make "score" a number between 0 and 1)`,
        ),
      );
    }
  });
}

/**
 * Whether a Task is passed, itself or in its list, to a function of another
 * module that sets verifiers (TaskCandidate.givenTo): which verifier it ends
 * with is known only by running that function, so it is not listed (as for
 * such a function of the same module, which extraction has already left out).
 */
function givenToVerifying(file: FileIdentity, callees: readonly (readonly string[])[], resolver: Resolver): boolean {
  for (const parts of callees) {
    const r = resolver.callee(file.path, parts);
    if (r.kind === 'other' && r.setsVerifiers) return true;
  }
  return false;
}

/**
 * A call of a factory another module defines (factories.ts): the template
 * its body calls and the verifier its body sets, each resolved where the
 * factory is written. What is wrong there is that module's to say.
 */
function importedFactory(
  file: FileIdentity,
  call: CallFacts,
  resolver: Resolver,
  registry: TemplateRegistry,
): { target: Target; verifier: IndexedVerifierLink | undefined } | undefined {
  const r = resolver.callee(file.path, call.callee);
  if (r.kind !== 'factory' || r.path === file.path) return undefined;
  const there: FileIdentity = { ...file, path: r.path, uri: file.uriOf(r.path), rel: file.relOf(r.path) };
  const resolveThere = (c: CallFacts) => resolveTemplate(there, c, resolver, registry);
  const target = resolveThere(r.factory.call);
  if (!target) return undefined;
  const value = r.factory.verifier;
  const factsThere = resolver.pythonFacts(r.path);
  const verifier =
    value && factsThere
      ? linkVerifier(
          there,
          factsThere,
          { side: target, env: target.env },
          { value, range: value.range },
          resolveThere,
          resolver,
          [],
          [],
        )
      : undefined;
  return { target, verifier };
}

function resolveTemplate(
  file: FileIdentity,
  call: CallFacts,
  resolver: Resolver,
  registry: TemplateRegistry,
): Target | undefined {
  if (call.explicit) {
    const { env, id } = call.explicit;
    const found = registry.find(env, id);
    const pick = found.find((f) => f.path === file.path) ?? found[0];
    return (
      pick && { template: pick.template, env, path: pick.path, rel: file.relOf(pick.path), uri: file.uriOf(pick.path) }
    );
  }
  const r = resolver.callee(file.path, call.callee);
  if (r.kind !== 'template') return undefined;
  return { template: r.template, env: r.env, path: r.path, rel: file.relOf(r.path), uri: file.uriOf(r.path) };
}

function use(range: Range, role: TemplateUse['role'], t: Target): TemplateUse {
  return { range, role, templatePath: t.path, env: t.env, templateId: t.template.id };
}

/** Appends what is wrong with the arguments of `call` to `out`. */
function argProblems(call: CallFacts, template: TemplateFacts, out: FileProblem[]): void {
  // Its parameters are a guess: neither the arguments nor their types are checked against them.
  if (template.broken) return;
  if (call.explicit) {
    explicitArgProblems(call, call.explicit, template, out);
    return;
  }
  const shape = { positional: call.positional, keywords: call.keywords.map((k) => k.name), hasSplat: call.hasSplat };
  for (const p of checkArgs(template, shape)) {
    const kw = p.keyword === undefined ? undefined : call.keywords.find((k) => k.name === p.keyword);
    const found = problem(
      p.varargs ? 'task-args-into-varargs' : 'task-bad-args',
      kw?.range ?? call.calleeRange,
      p.message,
    );
    if (p.renameTo?.length) found.fix = { kind: 'rename-keyword', names: p.renameTo };
    else if (p.missing && call.closeParen) {
      found.fix = {
        kind: 'add-keyword',
        name: p.missing,
        at: call.closeParen,
        leadingComma: call.positional > 0 || call.keywords.length > 0,
      };
    }
    out.push(found);
  }
  literalTypeProblems(call, template, out);
}

/** `Task(..., args={...})`: the keys are the template's keyword arguments (the SDK binds them when the task runs). */
function explicitArgProblems(call: CallFacts, explicit: ExplicitTask, template: TemplateFacts, out: FileProblem[]) {
  if (!explicit.argKeys) return;
  const range = call.keywords.find((k) => k.name === 'args')?.range ?? call.calleeRange;
  const shape = { positional: 0, keywords: explicit.argKeys, hasSplat: false };
  for (const p of checkArgs(template, shape))
    out.push(problem(p.varargs ? 'task-args-into-varargs' : 'task-bad-args', range, `args=: ${p.message}`));
}

/**
 * A `Task(env=..., id=...)` whose template no workspace file defines; not said of an environment the module
 * builds where the index reads no templates (unreadEnvironments.ts).
 */
function unknownExplicit(
  explicit: ExplicitTask,
  range: Range,
  code: 'task-unknown-template' | 'verifier-unknown-template',
): FileProblem {
  return problem(
    code,
    range,
    `Task(env="${explicit.env}", id="${explicit.id}"): no template "${explicit.id}" in environment "${explicit.env}" in this workspace (fix: correct env= and id=, or define it with @<environment>.template(id="${explicit.id}") on Environment("${explicit.env}"))`,
  );
}

const RECEIVED: Record<LiteralArg['kind'], string> = {
  str: 'a str',
  int: 'an int',
  float: 'a float',
  bool: 'a bool',
  none: 'None',
};

/** Appends the literal arguments the SDK's conversion would pass on unconverted (see argTypes.ts) to `out`. */
function literalTypeProblems(call: CallFacts, template: TemplateFacts, out: FileProblem[]): void {
  for (const k of call.keywords)
    if (k.literal && k.valueRange) literalTypeProblem(template, k.name, k.literal, k.valueRange, out);
  for (const p of call.positionalLiterals ?? []) {
    const param = positionalParam(template.params, p.index);
    if (param) literalTypeProblem(template, param.name, p.literal, p.range, out);
  }
}

function annotationOf(template: TemplateFacts, name: string): string | undefined {
  for (const p of template.params)
    if (p.name === name && (p.kind === 'positional' || p.kind === 'keyword')) return p.annotation;
  return undefined;
}

function literalTypeProblem(
  template: TemplateFacts,
  name: string,
  literal: LiteralArg,
  range: Range,
  out: FileProblem[],
): void {
  const annotation = annotationOf(template, name);
  const mismatch = annotation ? literalMismatch(annotation, literal) : undefined;
  if (!mismatch) return;
  const shown = literal.kind === 'str' ? JSON.stringify(literal.value) : literal.value;
  const found = problem(
    'task-arg-type',
    range,
    `${template.functionName}(): ${name}=${shown} is not ${mismatch.expected} (${name}: ${annotation}); the SDK passes it on unconverted, so the template gets ${RECEIVED[literal.kind]} (fix: ${mismatch.choices.length ? `pass ${mismatch.choices.slice(0, 3).join(' or ')}` : `pass ${mismatch.expected}`})`,
  );
  if (mismatch.choices.length) found.fix = { kind: 'replace-literal', choices: mismatch.choices };
  out.push(found);
}

/**
 * Links a task's verifier (`{value, range}`: what is assigned and where).
 * `actor.side` is undefined for a `Task(env=..., id=...)` whose template
 * is not in the workspace.
 */
function linkVerifier(
  file: FileIdentity,
  facts: PythonFacts,
  actor: { side: Target | undefined; env: string },
  { value, range }: { value: VerifierValue; range: Range },
  resolve: (call: CallFacts) => Target | undefined,
  resolver: Resolver,
  problems: FileProblem[],
  uses: TemplateUse[],
): IndexedVerifierLink | undefined {
  // None takes the verifier away; an opaque value is judged only by running the module.
  if (value.kind === 'none' || value.kind === 'opaque') return undefined;
  let call: CallFacts | undefined;
  /** Where the verifier's own verifier is set, if it has one (for the quick fix that removes it). */
  let inner: { uri: string; range: Range } | undefined;
  let nameRange = value.range;
  /** `x.verifier = None` after `x = make()` or `x = Task(..., verifier=...)`: what the call gave x is gone. */
  let cleared = false;
  if (value.kind === 'call') {
    call = value.call;
    nameRange = call.calleeRange;
  } else {
    const r = resolver.lookup(file.path, value.name);
    if (r.kind === 'task') {
      call = r.task.call;
      const ownFacts = r.path === file.path ? facts : resolver.pythonFacts(r.path);
      const name = r.task.name;
      // The last one counts: `x.verifier = None` takes the verifier away again.
      let assignment: VerifierAssignment | undefined;
      for (const a of ownFacts?.verifierAssignments ?? [])
        if (a.target === name && a.index === undefined) assignment = a;
      if (assignment?.value.kind === 'none') cleared = true;
      else if (assignment) inner = { uri: file.uriOf(r.path), range: wholeLines(assignment.range) };
    } else if (r.kind === 'external' || r.kind === 'value') {
      return undefined;
    } else {
      problems.push(unknownTemplate(value.name, value.range, r.kind));
      return undefined;
    }
  }
  const target = resolve(call);
  if (!target) {
    if (call.explicit) {
      if (!facts.unreadEnvironments?.includes(call.explicit.env))
        problems.push(unknownExplicit(call.explicit, call.calleeRange, 'verifier-unknown-template'));
      return undefined;
    }
    // What a function or a class returns is known only by running it (a factory may return a Task); an undefined
    // name fails the import.
    const r = resolver.callee(file.path, call.callee);
    if (r.kind === 'unknown') problems.push(unknownTemplate(call.callee.join('.'), call.calleeRange, r.kind));
    return undefined;
  }
  if (value.kind === 'call') {
    uses.push(use(call.calleeRange, 'verifier', target));
    argProblems(call, target.template, problems);
  }
  if (inner || (!cleared && (call.explicit?.verifier || call.verifier))) {
    const found = problem(
      'verifier-nested',
      nameRange,
      `this verifier (${target.env}/${target.template.id}) has a verifier of its own; nested verifier tasks are rejected (fix: remove the inner verifier, or make it the task's verifier instead)`,
    );
    if (inner) found.fix = { kind: 'delete', ...inner, title: 'Remove the inner verifier' };
    problems.push(found);
  }
  problems.push(...checkVerifier(actor.side, target, range));
  return {
    env: target.env,
    templateId: target.template.id,
    uri: file.uri,
    range,
    templateUri: file.uriOf(target.path),
    sameEnvironment: target.env === actor.env,
  };
}

function unknownTemplate(name: string, range: Range, kind: Resolved['kind']): FileProblem {
  if (kind === 'template')
    return problem(
      'verifier-unknown-template',
      range,
      `verifier "${name}" is the template itself, not a task: the SDK accepts only a Task there, so the import fails (fix: call it, \`${name}(...)\`)`,
    );
  const why = kind === 'unknown' ? 'is not defined or imported in this workspace' : 'is not a task';
  return problem(
    'verifier-unknown-template',
    range,
    `verifier "${name}" ${why} (fix: call a template, e.g. \`task.verifier = verify(...)\`, and import it from its module)`,
  );
}

/** A statement's lines with their line break: deleting it leaves no blank line behind. */
function wholeLines(range: Range): Range {
  return { start: { line: range.start.line, character: 0 }, end: { line: range.end.line + 1, character: 0 } };
}

/** `combine(...)` and `SomeGrader.grade(...)` from `hud.graders` are async; the rest of the graders are not. */
function isCoroutineCall(facts: PythonFacts, callee: readonly string[]): boolean {
  const head = callee[0]!;
  const last = callee[callee.length - 1]!;
  const binding = facts.imports.find((i) => i.local === head);
  const fromHud = !!binding && isHudModule(binding.module);
  if (callee.length === 1) return last === 'combine' && fromHud && binding?.name === 'combine';
  if (last === 'grade') return fromHud || /Grader$/.test(callee[callee.length - 2]!);
  return last === 'combine' && fromHud && binding?.name === undefined;
}
