/**
 * Extracts the HUD facts of one Python module: imports, environments,
 * templates, module-level task candidates and verifier links.
 *
 * The tree-sitter tree decides the structure: which module-level statements
 * exist and where each starts, and whether the file has syntax errors
 * (broken regions are ERROR nodes and everything around them still counts).
 * Inside a statement the tree has already delimited, calls, arguments and
 * dict displays are read with a bracket/string-aware scanner (pyScan.ts),
 * because every node access from JS is a call into wasm and a node-by-node
 * reading cost more than the parse itself. Whether a template's `yield`s
 * and key reads are code or text in a string or comment is read from the
 * text too in a file without errors, and asked of the tree where that
 * reading cannot be sure (templateBody.ts).
 *
 * Environments and templates count only in files that import `hud`, so an
 * unrelated `.template` decorator is ignored.
 *
 * This file reads the statements in order; the readers beside it take
 * their own part, over the types and per-module state of pythonModule.ts:
 * imports (pythonImports.ts), factories (moduleFactories.ts), assignments
 * (assignments.ts) and the calls in them (callFacts.ts), decorated defs
 * (pythonTemplates.ts), the loops read whole (moduleLoops.ts), what names
 * hold (moduleBindings.ts, knownValues.ts, listTracking.ts), and the Tasks
 * whose verifier only running the module tells (verifierReach.ts).
 */
import {
  bindsOf,
  deletedNames,
  parseAssignment,
  readAssignment,
  readEnvironment,
  simpleAssignment,
} from './assignments';
import type { PythonFacts, TaskCandidate } from './facts';
import { fitted } from './fitted';
import { intern } from './intern';
import { endValues, startValues } from './knownValues';
import { LineMap } from './lines';
import { forTargets } from './listGrowth';
import { forgetLists, growsKnownList, knownLists, trackLists, watchesLists } from './listTracking';
import {
  bind,
  claimAssignments,
  claimTasks,
  COMPOUND_HEAD,
  forgetLoopTargets,
  noteTasksHeld,
  withTaskNamesAssigned,
} from './moduleBindings';
import { factoryFacts, readFactories } from './moduleFactories';
import { moduleStatementStarts } from './moduleLayout';
import { buildsTasks, overNothing, setsVerifiers } from './moduleLoops';
import { definitionHeadAt, expressionEnd, headIs, identifierEnd, keywordAt, type Span } from './pyScan';
import { readImport, tryImports, type HudNames } from './pythonImports';
import {
  emptied,
  imported,
  statementOfAssignment,
  statementOfTask,
  type Ctx,
  type Factory,
  type Statement,
  type StatementKind,
} from './pythonModule';
import { findServiceAccess, readDecorated } from './pythonTemplates';
import { applyRebinding } from './rebinding';
import { sdkProblems } from './sdkChecks';
import { heldTask, shareCandidates, uniqueOthers } from './taskCandidates';
import { dropMap } from './textMap';
import { unreadEnvironments } from './unreadEnvironments';
import type { ModuleRoot } from './moduleTree';
import type { SyntaxNode } from './treeSitter';
import { notePassedTasks, notePassTargets, settleVerifierReach, forgetVerifierReach } from './verifierReach';

/**
 * Ctx.bound and the other per-module sets, reused from module to module
 * (one at a time): none of them outlives the extraction, and seven new
 * sets a file were a share of what the collector had to sweep.
 */
const boundSoFar = new Set<string>();
const hudNames: HudNames = { modules: new Set(), environment: new Set(), taskset: new Set(), task: new Set() };
const envVars = new Set<string>();
const taskOfName = new Map<string, TaskCandidate>();
const factoryOfName = new Map<string, Factory>();

/** Classifies a module-level statement by its first characters (no call into wasm). */
function kindOf(text: string, at: number): StatementKind {
  if (keywordAt(text, at, 'import') || keywordAt(text, at, 'from')) return 'import';
  if (text.charCodeAt(at) === 64 /* @ */) return 'decorated';
  if (keywordAt(text, at, 'def') || keywordAt(text, at, 'class') || keywordAt(text, at, 'async')) return 'definition';
  if (identifierEnd(text, at) > at) return 'simple';
  return 'other';
}

/** `root`: the module's tree, which the readers ask for nodes only where the text cannot tell (moduleTree.ts). */
export function extractPythonFacts(root: ModuleRoot, text: string): PythonFacts {
  const hasSyntaxErrors = root.hasError;
  const facts: PythonFacts = {
    kind: 'python',
    importsHud: false,
    imports: [],
    environments: [],
    templates: [],
    tasks: [],
    verifierAssignments: [],
    plainDefinitions: [],
    v5Scenarios: [],
    serviceAccess: [],
    hasSyntaxErrors,
  };
  const ctx: Ctx = {
    text,
    lines: new LineMap(text),
    root,
    hud: hudNames,
    facts,
    bound: boundSoFar,
    futureAnnotations: false,
    annotationProblems: undefined,
    taskOf: taskOfName,
    statements: [],
    factories: factoryOfName,
  };
  dropMap(); // a map left by an extraction that threw
  emptied(boundSoFar);
  emptied(taskOfName);
  startValues(text, root);
  forgetLists();
  forgetLoopTargets();
  emptied(factoryOfName);
  forgetVerifierReach();
  emptied(envVars);
  emptied(imported);
  emptied(hudNames.modules);
  emptied(hudNames.environment);
  emptied(hudNames.taskset);
  emptied(hudNames.task);
  // A statement's extent: from its start to the next statement's start.
  const statements: Statement[] = [];
  ctx.statements = statements;
  if (hasSyntaxErrors) {
    const nodes = moduleChildren(root);
    const spans: Span[] = nodes.map((n, i) => ({ start: n.startIndex, end: nodes[i + 1]?.startIndex ?? text.length }));
    for (const sp of recoverStatements(spans, nodes, text))
      statements.push({
        start: sp.start,
        end: sp.end,
        kind: kindOf(text, sp.start),
        parsed: undefined,
        binds: undefined,
        ...(sp.broken ? { broken: true } : {}),
      });
  } else {
    // The text says where statements start (moduleLayout.ts); the tree's count vouches for it, and for the map
    // of the text the same pass made (textMap.ts).
    let starts = moduleStatementStarts(text);
    if (!starts || starts.length !== root.namedChildCount) {
      dropMap();
      starts = moduleChildren(root).map((n) => n.startIndex);
    }
    for (let i = 0; i < starts.length; i++) {
      const start = starts[i]!;
      const end = i + 1 < starts.length ? starts[i + 1]! : text.length;
      statements.push({ start, end, kind: kindOf(text, start), parsed: undefined, binds: undefined });
    }
  }

  for (const st of statements) {
    let imports: Span[] | undefined;
    if (st.kind === 'import') imports = [{ start: st.start, end: expressionEnd(text, st.start, st.end) }];
    else if (st.kind === 'simple' && text.startsWith('try', st.start)) {
      imports = tryImports(text, st);
      // Read as what it binds, an import: nothing else in it is the index's.
      if (imports) st.kind = 'import';
    }
    if (!imports) continue;
    const first = facts.imports.length;
    for (const i of imports) readImport(text.slice(i.start, i.end), facts, ctx.hud);
    const bound = facts.imports.length - first;
    st.binds =
      bound === 1
        ? facts.imports[first]!.local
        : bound > 1
          ? facts.imports.slice(first).map((i) => i.local)
          : undefined;
  }
  // Factories before the assignments, whose calls of them are the tasks they make; in any module, since a helper
  // module of factories may import its templates from the environment's module and nothing from hud.
  readFactories(ctx, statements);
  // Each simple statement is read once: environments must be known before the decorators that use them.
  for (const st of statements) if (st.kind === 'simple') st.parsed = parseAssignment(ctx, st);
  if (facts.importsHud) {
    for (const st of statements) {
      const env = st.parsed && readEnvironment(ctx, st.parsed);
      if (env) {
        facts.environments.push(env);
        envVars.add(env.variable);
      }
    }
  }
  for (const i of facts.imports) {
    imported.add(i.local);
    if (i.module === '__future__' && i.name === 'annotations') ctx.futureAnnotations = true;
  }
  notePassTargets(ctx);
  statementOfTask.length = 0;
  statementOfAssignment.length = 0;
  for (let k = 0; k < statements.length; k++) {
    const st = statements[k]!;
    const firstTask = facts.tasks.length;
    let grew = false;
    if (st.kind === 'decorated') st.binds = readDecorated(ctx, st, envVars, imported);
    else if (st.kind === 'definition') {
      const head = definitionHeadAt(text, st.start, Math.min(text.length, st.start + 200));
      if (head) facts.plainDefinitions.push((st.binds = intern(text.slice(head.nameAt, head.nameEnd))));
    } else if (st.parsed) {
      readAssignment(ctx, st.parsed);
      if (st.parsed.kind === 'name') st.binds = bindsOf(st.parsed);
      claimTasks(ctx, st.start, k);
      claimAssignments(ctx, st.start, k);
    } else if (st.kind === 'simple') {
      const assigned = simpleAssignment(text, st);
      const alias = assigned && heldTask(ctx, assigned.rhs);
      if (alias) {
        // `b = a`: a second name for the very Task `a` holds (discovery lists both).
        const made = facts.tasks.length;
        const range = ctx.lines.rangeAt(st.start, assigned.rhs.end);
        facts.tasks.push({ name: assigned.name, call: alias.call, sharedCall: true, range });
        shareCandidates(facts, made, made + 1, uniqueOthers(assigned.name, assigned.more ?? []));
        claimTasks(ctx, st.start, k);
        st.binds = bindsOf(assigned);
      } else if (assigned) {
        const other = (facts.otherBindings ??= []);
        other.push(assigned.name);
        if (assigned.more) other.push(...assigned.more);
        st.binds = bindsOf(assigned);
      } else {
        let neverRuns = overNothing(ctx, st);
        grew = neverRuns;
        if (!grew && knownLists.size) grew = growsKnownList(ctx, st);
        if (!grew) {
          const set = setsVerifiers(ctx, st, k);
          grew = set !== false;
          neverRuns = set === 'overNothing';
        }
        const built = grew ? undefined : buildsTasks(ctx, st, k);
        if (built) grew = true;
        // A loop over nothing binds nothing: its names keep what they held.
        const loopTargets = neverRuns ? [] : forTargets(text, st.start);
        const targets = built && loopTargets ? [...loopTargets, ...built] : loopTargets;
        const deleted = targets ? undefined : deletedNames(text, st);
        if (targets?.length) st.loop = true;
        // A loop read whole binds its names and changes nothing else it mentions.
        if (grew && targets) st.exact = true;
        let names = targets ?? deleted;
        // A block the index does not read may bind again any name it assigns: a task's name there holds what
        // only running the module tells.
        if (!st.exact && headIs(COMPOUND_HEAD, text, st.start)) names = withTaskNamesAssigned(facts, text, st, names);
        if (names) st.binds = names.length === 1 ? intern(names[0]!) : names.map((t) => intern(t));
      }
    }
    if (watchesLists() || st.parsed?.kind === 'name') trackLists(ctx, st, k, grew);
    if (facts.tasks.length) notePassedTasks(ctx, st);
    const b = st.binds;
    if (typeof b === 'string') bind(ctx, b, st);
    else if (b) for (const name of b) bind(ctx, name, st);
    noteTasksHeld(ctx, st, firstTask);
  }
  if (facts.importsHud && hudNames.environment.size) {
    const unread = unreadEnvironments(text, hudNames.environment, facts);
    if (unread) facts.unreadEnvironments = unread;
  }
  settleVerifierReach(facts, statements, text);
  applyRebinding(facts, statements, statementOfTask, statementOfAssignment);
  if (facts.importsHud && text.includes('service_access')) facts.serviceAccess = findServiceAccess(root, text);
  if (facts.importsHud) {
    const sdk = sdkProblems(text, ctx.lines, envVars);
    if (ctx.annotationProblems) sdk.push(...ctx.annotationProblems);
    if (sdk.length) facts.sdkProblems = sdk;
  }
  facts.imports = fitted(facts.imports);
  facts.environments = fitted(facts.environments);
  facts.templates = fitted(facts.templates);
  facts.tasks = fitted(facts.tasks);
  facts.verifierAssignments = fitted(facts.verifierAssignments);
  facts.plainDefinitions = fitted(facts.plainDefinitions);
  if (facts.verifyingDefinitions) facts.verifyingDefinitions = fitted(facts.verifyingDefinitions);
  if (facts.otherBindings) facts.otherBindings = fitted(facts.otherBindings);
  const made = factoryFacts(ctx);
  if (made) facts.factories = made;
  facts.v5Scenarios = fitted(facts.v5Scenarios);
  facts.serviceAccess = fitted(facts.serviceAccess);
  endValues();
  dropMap();
  return facts;
}

function moduleChildren(root: ModuleRoot): SyntaxNode[] {
  const nodes: SyntaxNode[] = [];
  for (const n of root.namedChildren) if (n) nodes.push(n);
  return nodes;
}

/**
 * Error recovery can fold the statements after a broken line into one node
 * (an unclosed bracket swallows the rest of the file). Python's own layout
 * says better where statements start: inside a broken statement, every line
 * that starts in column 0 starts a new one (a decorator keeps its `def`).
 */
function recoverStatements(spans: Span[], nodes: SyntaxNode[], text: string): (Span & { broken?: true })[] {
  const out: (Span & { broken?: true })[] = [];
  spans.forEach((span, i) => {
    const node = nodes[i]!;
    if (node.type !== 'ERROR' && !node.hasError) {
      out.push(span);
      return;
    }
    const starts = [span.start];
    for (let nl = text.indexOf('\n', span.start); nl >= 0 && nl + 1 < span.end; nl = text.indexOf('\n', nl + 1)) {
      if (/[A-Za-z_@]/.test(text[nl + 1]!)) starts.push(nl + 1);
    }
    let pending: number | undefined;
    starts.forEach((start, j) => {
      const end = starts[j + 1] ?? span.end;
      if (text[start] === '@') {
        pending ??= start;
        return;
      }
      out.push({ start: pending ?? start, end, broken: true });
      pending = undefined;
    });
    if (pending !== undefined) out.push({ start: pending, end: span.end, broken: true });
  });
  return out;
}
