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
 * This file reads the statements in order and keeps what names hold; the
 * readers beside it take their own part: imports (pythonImports.ts),
 * decorated defs (pythonTemplates.ts), and the Tasks whose verifier only
 * running the module tells (verifierReach.ts), over the types in
 * pythonModule.ts.
 */
import { fitted } from './fitted';
import type {
  CallFacts,
  FactoryFacts,
  EnvironmentFacts,
  ExplicitTask,
  PythonFacts,
  Range,
  TaskCandidate,
  VerifierAssignment,
  VerifierValue,
} from './facts';
import { intern, internDotted } from './intern';
import { literalArg } from './literalArg';
import { LineMap } from './lines';
import {
  assignedValueAt,
  calleeEndAt,
  definitionHeadAt,
  expressionEnd,
  hasStarred,
  headIs,
  identifierEnd,
  isName,
  isWordCode,
  keywordAt,
  keywordValueAt,
  matchAt,
  matchBracket,
  scanTo,
  skipSpaces,
  splitTopLevel,
  trimEnd,
  trimStart,
  type Span,
} from './pyScan';
import { literalString } from './syntax';
import {
  iterableLength,
  MAX_COMPREHENSION_ELEMENTS,
  mayBeComprehension,
  readComprehension,
  type KnownNames,
} from './comprehension';
import { inComment, readsOnly } from './readOnlyMention';
import { evaluate, type ValueScope } from './staticValue';
import { buildingLoop, forLoop, forTargets, growingLoop, growthStep, type GrowthStep } from './listGrowth';
import { namesAssignedIn } from './blockBindings';
import { factoryShape, type FactoryShape } from './factories';
import { moduleStatementStarts } from './moduleLayout';
import { isHudName, readImport, tryImports, type HudNames } from './pythonImports';
import { dropMap } from './textMap';
import { applyRebinding, bindsName, type Binds } from './rebinding';
import { asciiNamesIn, isAsciiName, mentionedIn, mentionsOf, writtenBefore } from './writtenNames';
import { sdkProblems } from './sdkChecks';
import {
  imported,
  statementOfAssignment,
  statementOfTask,
  UNCOUNTED,
  type ArgSpan,
  type Ctx,
  type KnownList,
  type ParsedAssignment,
  type ParsedCall,
  type Statement,
  type StatementKind,
} from './pythonModule';
import { findServiceAccess, readDecorated } from './pythonTemplates';
import {
  noteListTouched,
  notePassedTasks,
  notePassTargets,
  noteVerifiersSet,
  settleVerifierReach,
  forgetVerifierReach,
} from './verifierReach';
import type { SyntaxNode, Tree } from './treeSitter';

/**
 * Ctx.bound and the other per-module sets, reused from module to module
 * (one at a time): none of them outlives the extraction, and seven new
 * sets a file were a share of what the collector had to sweep.
 */
const boundSoFar = new Set<string>();
const hudNames: HudNames = { modules: new Set(), environment: new Set(), taskset: new Set(), task: new Set() };
const envVars = new Set<string>();
const taskOfName = new Map<string, TaskCandidate>();

/** Empties a reused set or map. `clear()` allocates a new table even for an empty one, and most stay empty. */
function emptied(c: Set<unknown> | Map<unknown, unknown>): void {
  if (c.size > 0) c.clear();
}

/**
 * Module-level names bound to a display, a literal range or an integer
 * literal: how many items the value has, or which integer it is, and where
 * the binding starts. `lengthBefore` is the statement being read, which
 * such a name is asked about.
 */
const knownValues = new Map<string, KnownValue>();

interface KnownValue {
  at: number;
  count?: number;
  int?: number;
  /** The display or `range(...)` the name is bound to. */
  value?: Span;
  /** Nothing can change the value in place (an integer, a range, a tuple of literals): only binding the name can. */
  immutable: boolean;
  read: ReadSoFar;
}

/**
 * How far the mentions of a known value were read (knownValue): each is
 * asked once, however many statements ask about the name.
 */
interface ReadSoFar {
  /** Every mention before this offset only reads the name. */
  readUpTo: number;
  /** The first mention found that may bind it again. */
  boundAt: number;
}

const readSoFar = (): ReadSoFar => ({ readUpTo: 0, boundAt: Number.POSITIVE_INFINITY });
let lengthBefore = 0;
/**
 * Module-level functions that make a task (factories.ts) of the module being
 * read, by name: a call of one below its `def` is the task it makes.
 */
const factories = new Map<string, Factory>();

interface Factory {
  /** Where its `def` starts: a call above it raises NameError. */
  defined: number;
  call: ParsedCall;
  verifier: VerifierValue | undefined;
  /** Whether a call of it was read already: its problems are said once. */
  used: boolean;
}

/** Set by the readers of a module-level `for` loop that found it goes over nothing (see extractPythonFacts). */
let loopNeverRuns = false;
let lengthText = '';
/** The syntax tree of the module being read, for the few readers that evaluate an expression (staticValue.ts). */
let moduleRoot: SyntaxNode | undefined;

/**
 * What `name` holds at `lengthBefore`, when it was bound to a known value
 * and named nowhere else before but in a comment, where `reads` says the
 * mention only reads it, or, for a value nothing changes in place, where
 * the tree says so (readOnlyMention.ts: `N // 2`, `print(N)`). Any other
 * occurrence (a rebinding in a block, an `append`, a call that may mutate
 * a list, the name in a string) leaves it unknown.
 */
function knownValue(name: string, reads: (at: number, end: number) => boolean) {
  const known = knownValues.get(name);
  if (!known || known.at >= lengthBefore) return undefined;
  const { read } = known;
  if (read.boundAt < lengthBefore) return undefined;
  const re = mentionsOf(name);
  re.lastIndex = read.readUpTo;
  for (let m = re.exec(lengthText); m && m.index < lengthBefore; m = re.exec(lengthText)) {
    const end = m.index + name.length;
    if (m.index === known.at || reads(m.index, end)) continue;
    if (moduleRoot && (known.immutable ? readsOnly(moduleRoot, m.index, end) : inComment(moduleRoot, m.index)))
      continue;
    read.boundAt = m.index;
    return undefined;
  }
  read.readUpTo = Math.max(read.readUpTo, lengthBefore);
  return known;
}

/** A sequence is only read after `in` (`for x in NAME`, `x in NAME`) and by `len(NAME)`. */
function readsSequence(at: number, end: number): boolean {
  const before = lengthText.slice(Math.max(0, at - 12), at);
  return AFTER_IN.test(before) || (IN_LEN.test(before) && CLOSES.test(lengthText.slice(end, end + 8)));
}
const AFTER_IN = /(?:^|[^\w.])in[ \t]+$/;
const IN_LEN = /(?:^|[^\w.])len[ \t]*\([ \t]*$/;
const CLOSES = /^[ \t]*\)/;

/** An integer can only be bound again: a mention as an argument of a one-line `range(...)` cannot. */
function isRangeArgument(at: number, end: number): boolean {
  const lineStart = lengthText.lastIndexOf('\n', at) + 1;
  return IN_RANGE.test(lengthText.slice(lineStart, at)) && ENDS_ARGUMENT.test(lengthText.slice(end, end + 8));
}
const IN_RANGE = /(?:^|[^\w.])range[ \t]*\([^()\n]*$/;
const ENDS_ARGUMENT = /^[ \t]*[,)]/;

/** `("a", "b")`: one parenthesized display whose items are all literals, so nothing in it can change. */
function isTupleOfLiterals(text: string, rhs: Span, items: readonly Span[]): boolean {
  return (
    text.charCodeAt(rhs.start) === 40 /* ( */ &&
    matchBracket(text, rhs.start, rhs.end) === rhs.end - 1 &&
    items.every((i) => literalArg(text, i) !== undefined)
  );
}

/** The node of the module's tree that spans exactly [start, end), if it parsed without errors. */
function nodeAt(start: number, end: number): SyntaxNode | undefined {
  const node = moduleRoot?.descendantForIndex(start, end);
  return node && node.startIndex === start && node.endIndex === end && !node.hasError ? node : undefined;
}

/** How many items iterating the expression at `span` gives, as of `lengthBefore` (comprehension.ts). */
function passesOver(span: Span): number | undefined {
  return iterableLength(nodeAt(span.start, span.end), knownNames);
}

/** Where a known sequence's items are evaluated: its display names nothing the index would follow. */
const NO_NAMES: ValueScope = { valueOf: () => undefined, lengthOf: () => undefined, binds: () => false };

const knownNames: KnownNames = {
  lengthOf: (name) => knownValue(name, readsSequence)?.count,
  intOf: (name) => knownValue(name, isRangeArgument)?.int,
  valuesOf: (name) => {
    const span = knownValue(name, readsSequence)?.value;
    const node = span && nodeAt(span.start, span.end);
    const v = node ? evaluate(node, NO_NAMES) : undefined;
    return v?.kind === 'tuple' || v?.kind === 'list' || v?.kind === 'range' ? v : undefined;
  },
};

/** Classifies a module-level statement by its first characters (no call into wasm). */
function kindOf(text: string, at: number): StatementKind {
  if (keywordAt(text, at, 'import') || keywordAt(text, at, 'from')) return 'import';
  if (text.charCodeAt(at) === 64 /* @ */) return 'decorated';
  if (keywordAt(text, at, 'def') || keywordAt(text, at, 'class') || keywordAt(text, at, 'async')) return 'definition';
  if (identifierEnd(text, at) > at) return 'simple';
  return 'other';
}

export function extractPythonFacts(tree: Tree, text: string): PythonFacts {
  const root = tree.rootNode;
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
  };
  dropMap(); // a map left by an extraction that threw
  emptied(boundSoFar);
  emptied(taskOfName);
  emptied(knownValues);
  emptied(knownLists);
  listNameNotAscii = false;
  emptied(loopBound);
  emptied(factories);
  forgetVerifierReach();
  lengthText = text;
  moduleRoot = root;
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
        loopNeverRuns = overNothing(ctx, st);
        grew = loopNeverRuns;
        if (!grew && knownLists.size) grew = growsKnownList(ctx, st);
        if (!grew) grew = setsVerifiers(ctx, st, k);
        const built = grew ? undefined : buildsTasks(ctx, st, k);
        if (built) grew = true;
        // A loop over nothing binds nothing: its names keep what they held.
        const loopTargets = loopNeverRuns ? [] : forTargets(text, st.start);
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
    if (knownLists.size || st.parsed?.kind === 'name') trackLists(ctx, st, k, grew);
    if (facts.tasks.length) notePassedTasks(ctx, st);
    const b = st.binds;
    if (typeof b === 'string') bind(ctx, b, st);
    else if (b) for (const name of b) bind(ctx, name, st);
    noteTasksHeld(ctx, st, firstTask);
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
  if (factories.size) facts.factories = factoryFacts();
  facts.v5Scenarios = fitted(facts.v5Scenarios);
  facts.serviceAccess = fitted(facts.serviceAccess);
  lengthText = ''; // the module's text is not kept past its extraction
  moduleRoot = undefined;
  dropMap();
  return facts;
}

function moduleChildren(root: SyntaxNode): SyntaxNode[] {
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
function recoverStatements(spans: Span[], nodes: SyntaxNode[], text: string): Span[] {
  const out: Span[] = [];
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
      out.push({ start: pending ?? start, end });
      pending = undefined;
    });
    if (pending !== undefined) out.push({ start: pending, end: span.end });
  });
  return out;
}

const VERIFIER_TARGET = /([A-Za-z_]\w*)\s*(?:\[\s*(\d+)\s*\])?\s*\.\s*verifier\s*=(?!=)\s*/y;

/** `name = <rhs>` or `a = b = <rhs>`: the variables and where the right-hand side starts and ends. */
function simpleAssignment(text: string, st: Span): { name: string; more?: string[]; rhs: Span } | undefined {
  let start = assignedValueAt(text, st.start);
  if (start < 0 || start > st.end) return undefined;
  const name = intern(text.slice(st.start, identifierEnd(text, st.start)));
  let more: string[] | undefined;
  while (mayBeTarget(text, start, st.end)) {
    const next = assignedValueAt(text, start);
    if (next < 0 || next > st.end) break;
    (more ??= []).push(intern(text.slice(start, identifierEnd(text, start))));
    start = next;
  }
  const rhs = { start, end: expressionEnd(text, start, st.end) };
  return more ? { name, more, rhs } : { name, rhs };
}

/** The names an assignment binds: one, or each target of `a = b = ...`. */
const bindsOf = (a: { name: string; more?: string[] | undefined }): Binds => (a.more ? [a.name, ...a.more] : a.name);

/** Whether a name at `at` is followed by `=` or `:` (a chained target), without a regular expression for `f(...)`. */
function mayBeTarget(text: string, at: number, end: number): boolean {
  let i = at;
  while (i < end && isWordCode(text.charCodeAt(i))) i++;
  if (i === at) return false;
  while (i < end && (text[i] === ' ' || text[i] === '\t')) i++;
  return text[i] === '=' || text[i] === ':';
}

function parseAssignment(ctx: Ctx, st: Span): ParsedAssignment | undefined {
  const { text } = ctx;
  const v = matchAt(VERIFIER_TARGET, text, st.start, st.end);
  if (v) {
    const start = st.start + v[0].length;
    const end = expressionEnd(text, start, st.end);
    const value = verifierValue(ctx, { start, end });
    if (!value) return undefined;
    return {
      kind: 'verifier',
      target: intern(v[1]!),
      ...(v[2] === undefined ? {} : { index: Number(v[2]) }),
      value,
      range: ctx.lines.rangeAt(st.start, end),
    };
  }
  const assign = simpleAssignment(text, st);
  if (!assign) return undefined;
  lengthBefore = st.start;
  const items = sequenceItems(text, assign.rhs);
  const { name, more, rhs } = assign;
  if (items) {
    if (!more && items !== UNCOUNTED && !hasStarred(text, items)) {
      const immutable = isTupleOfLiterals(text, rhs, items);
      knownValues.set(name, { count: items.length, at: st.start, value: rhs, immutable, read: readSoFar() });
    }
    return { kind: 'name', name, more, rhs, statement: st, items };
  }
  const call = parseCall(ctx, rhs);
  if (!call) {
    const lit = more ? undefined : literalArg(text, rhs);
    if (lit?.kind === 'int')
      knownValues.set(name, { int: Number(lit.value), at: st.start, immutable: true, read: readSoFar() });
    return undefined;
  }
  if (!more && call.facts.callee.length === 1 && call.facts.callee[0] === 'range') {
    const count = passesOver(rhs);
    if (count !== undefined)
      knownValues.set(name, { count, at: st.start, value: rhs, immutable: true, read: readSoFar() });
  }
  return { kind: 'name', name, more, rhs, statement: st, call };
}

function readEnvironment(ctx: Ctx, parsed: ParsedAssignment): EnvironmentFacts | undefined {
  if (
    parsed.kind !== 'name' ||
    !parsed.call ||
    !isHudName(parsed.call.facts.callee, ctx.hud, ctx.hud.environment, 'Environment')
  )
    return undefined;
  const args = parsed.call.args;
  const nameArg = args.find((a) => a.keyword === 'name') ?? args.find((a) => a.keyword === undefined && !a.splat);
  const name = nameArg ? literalString(ctx.text.slice(nameArg.value.start, nameArg.value.end)) : undefined;
  return {
    variable: parsed.name,
    name: name === undefined ? parsed.name : intern(name, true),
    range: ctx.lines.rangeAt(parsed.statement.start, parsed.rhs.end),
  };
}

/** A call written as `dotted.name(args)` spanning exactly `span`. */
function parseCall(ctx: Ctx, span: Span): ParsedCall | undefined {
  const { text, lines } = ctx;
  const calleeEnd = calleeEndAt(text, span.start);
  if (calleeEnd < 0) return undefined;
  const open = skipSpaces(text, calleeEnd);
  if (open >= span.end) return undefined;
  const close = matchBracket(text, open, span.end);
  if (close !== span.end - 1) return undefined; // `f(x).g`, `f(x) + 1`: not a plain call
  const callee = internDotted(text.slice(span.start, calleeEnd));
  if (factories.size && callee.length === 1) {
    const factory = factories.get(callee[0]!);
    if (factory && factory.defined < span.start) return madeBy(factory, lines.rangeAt(span.start, span.end));
  }
  const facts: CallFacts = {
    callee,
    range: lines.rangeAt(span.start, span.end),
    calleeRange: lines.rangeAt(span.start, calleeEnd),
    positional: 0,
    keywords: [],
    hasSplat: false,
    closeParen: lines.positionAt(close),
  };
  const args: ArgSpan[] = [];
  for (const a of splitTopLevel(text, open + 1, close)) {
    if (text[a.start] === '*') {
      facts.hasSplat = true;
      args.push({ splat: true, span: a, value: a });
      continue;
    }
    const valueStart = keywordValueAt(text, a.start);
    if (valueStart >= 0 && valueStart <= a.end) {
      const value = { start: valueStart, end: a.end };
      const nameEnd = identifierEnd(text, a.start);
      const name = intern(text.slice(a.start, nameEnd));
      args.push({ keyword: name, splat: false, span: a, value });
      const range = lines.rangeAt(a.start, nameEnd);
      const literal = literalArg(text, value);
      // Every field in the literal: one added later goes to a separate property store.
      facts.keywords.push(
        literal ? { name, range, literal, valueRange: lines.rangeAt(value.start, value.end) } : { name, range },
      );
    } else {
      args.push({ splat: false, span: a, value: a });
      const literal = literalArg(text, a);
      if (literal)
        (facts.positionalLiterals ??= []).push({
          index: facts.positional,
          literal,
          range: lines.rangeAt(a.start, a.end),
        });
      facts.positional++;
    }
  }
  facts.keywords = fitted(facts.keywords);
  if (facts.positionalLiterals) facts.positionalLiterals = fitted(facts.positionalLiterals);
  if (ctx.hud.task.size || ctx.hud.modules.size) {
    const explicit = isHudName(callee, ctx.hud, ctx.hud.task, 'Task') ? explicitTask(ctx, args) : undefined;
    if (explicit) facts.explicit = explicit;
  }
  return { facts, args };
}

/**
 * Reads the plain `def` in `st` as a factory when its body makes a task and
 * returns it: `return solve(...)`, or `t = solve(...)`, `t.verifier =
 * check(...)` (or `None`), `return t`. A verifier named by a variable is
 * read when the function runs, so such a function is not read; nor is a
 * name defined twice or bound by an assignment too.
 */
function readFactories(ctx: Ctx, statements: readonly Statement[]): void {
  const { text } = ctx;
  for (const st of statements) {
    if (st.kind !== 'definition') continue;
    // Within the def only (V8 slices without copying): a search from its start could run on to the module's end.
    const shape = text.slice(st.start, st.end).includes('return') ? factoryShape(text, st) : undefined;
    if (shape) readFactory(ctx, st, shape);
  }
  if (!factories.size) return;
  // `make = other` or a second `def make` anywhere at module level: what a call makes depends on where it is.
  for (const st of statements) {
    let name: string | undefined;
    if (st.kind === 'simple' && keywordValueAt(text, st.start, st.end) >= 0)
      name = text.slice(st.start, identifierEnd(text, st.start, st.end));
    else if (st.kind === 'definition') {
      const head = definitionHeadAt(text, st.start, Math.min(st.end, st.start + 300));
      if (head) name = text.slice(head.nameAt, head.nameEnd);
    }
    if (name !== undefined && factories.get(name)?.defined !== st.start) factories.delete(name);
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
  if (call) factories.set(name, { defined: st.start, call, verifier, used: false });
}

/** The module's factories as its facts keep them, for modules that import them. */
function factoryFacts(): FactoryFacts[] {
  const out: FactoryFacts[] = [];
  for (const [name, f] of factories) {
    const kept: FactoryFacts = { name: intern(name), call: f.call.facts };
    if (f.verifier) kept.verifier = f.verifier;
    out.push(kept);
  }
  return out;
}

/** A call of `factory` at `range`: a task of its own, made as the factory's body makes it. */
function madeBy(factory: Factory, range: Range): ParsedCall {
  const facts: CallFacts = { ...factory.call.facts, range };
  if (factory.verifier) facts.verifier = factory.verifier;
  if (factory.used) facts.echo = true;
  factory.used = true;
  return { facts, args: factory.call.args };
}

/** The fields of `Task(...)` that say which template it runs; undefined unless env and id are literals. */
function explicitTask(ctx: Ctx, args: ArgSpan[]): ExplicitTask | undefined {
  const { text } = ctx;
  const field = (name: string) => args.find((a) => a.keyword === name)?.value;
  const literal = (span: Span | undefined) => (span ? literalString(text.slice(span.start, span.end)) : undefined);
  const env = literal(field('env'));
  const id = literal(field('id'));
  if (env === undefined || id === undefined) return undefined;
  const out: ExplicitTask = { env: intern(env, true), id: intern(id, true) };
  const argsSpan = field('args');
  const keys = argsSpan ? literalKeys(text, argsSpan) : [];
  if (keys) out.argKeys = keys;
  const verifierSpan = field('verifier');
  const verifier = verifierSpan && verifierValue(ctx, verifierSpan);
  if (verifier) out.verifier = verifier;
  return out;
}

/** The keys of a dict display whose keys are all string literals (`{"a": 1, 'b': x}`). */
function literalKeys(text: string, span: Span): string[] | undefined {
  if (text[span.start] !== '{' || matchBracket(text, span.start, span.end) !== span.end - 1) return undefined;
  const keys: string[] = [];
  for (const item of splitTopLevel(text, span.start + 1, span.end - 1)) {
    const colon = scanTo(text, item.start, item.end, ':');
    if (colon >= item.end) return undefined; // `**other`, or not a dict display
    const key = literalString(text.slice(item.start, colon).trim());
    if (key === undefined) return undefined;
    keys.push(intern(key));
  }
  return keys;
}

function verifierValue(ctx: Ctx, span: Span): VerifierValue | undefined {
  const source = ctx.text.slice(span.start, span.end);
  if (source === 'None') return { kind: 'none', range: ctx.lines.rangeAt(span.start, span.end) };
  if (/^[A-Za-z_]\w*$/.test(source))
    return { kind: 'name', name: intern(source), range: ctx.lines.rangeAt(span.start, span.end) };
  const call = parseCall(ctx, span);
  return call ? { kind: 'call', call: call.facts, range: call.facts.range } : undefined;
}

function readAssignment(ctx: Ctx, parsed: ParsedAssignment): void {
  const { text, facts } = ctx;
  if (parsed.kind === 'verifier') {
    const { kind: _kind, ...assignment } = parsed;
    facts.verifierAssignments.push(assignment);
    return;
  }
  if (parsed.more) {
    // Each target of `a = b = ...` is a task reference of its own (discovery lists both).
    const { more, ...rest } = parsed;
    const made = facts.tasks.length;
    readAssignment(ctx, { ...rest, more: undefined });
    const end = facts.tasks.length;
    // The other names hold the very object the first holds: its Task, or its list and so each element's Task.
    shareCandidates(facts, made, end, uniqueOthers(rest.name, more));
    return;
  }
  if (parsed.items) {
    pushElements(ctx, parsed.items, parsed.name);
    return;
  }
  const call = parsed.call;
  if (!call || isHudName(call.facts.callee, ctx.hud, ctx.hud.environment, 'Environment')) return;
  if (isHudName(call.facts.callee, ctx.hud, ctx.hud.taskset, 'Taskset')) {
    const list =
      call.args.find((a) => a.keyword === 'tasks') ?? call.args.filter((a) => a.keyword === undefined && !a.splat)[1];
    lengthBefore = parsed.statement.start;
    const listItems = list ? sequenceItems(text, list.value) : undefined;
    if (listItems) pushElements(ctx, listItems, parsed.name, true);
    return;
  }
  facts.tasks.push({
    name: parsed.name,
    call: call.facts,
    range: ctx.lines.rangeAt(parsed.statement.start, parsed.rhs.end),
  });
}

const COMPOUND_HEAD = /(?:if|for|while|try|with|match|async)\b/y;

/** `names`, and the names of the module's tasks the compound statement `st` assigns in its blocks. */
function withTaskNamesAssigned(
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
function noteTasksHeld(ctx: Ctx, st: Statement, firstTask: number): void {
  const { taskOf } = ctx;
  const b = st.binds;
  if (
    taskOf.size &&
    (st.kind === 'other' || (!b && headIs(COMPOUND_HEAD, ctx.text, st.start)) || (st.loop && !st.exact))
  ) {
    noteVerifiersSet(ctx, st);
    for (const name of taskOf.keys()) if (mentionedIn(ctx.text, name, st)) taskOf.delete(name);
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
 * Items of a list/tuple display (`[a, b]`, `(a, b)`, `a, b`), or of displays
 * joined with `+`, or undefined when `span` is none of these.
 */
function sequenceItems(text: string, span: Span): Span[] | undefined {
  const first = text[span.start];
  if (first === '[' || first === '(') {
    const close = matchBracket(text, span.start, span.end);
    if (close === span.end - 1) return displayItems(text, span, close);
    const joined = close > 0 ? joinedItems(text, span, first) : undefined;
    if (joined) return joined;
  }
  // Most right-hand sides are a single expression: one scan for a comma at depth 0 decides, without the list.
  const comma = scanTo(text, span.start, span.end, ',');
  if (comma >= span.end || text.charCodeAt(comma) !== 44) return undefined;
  const items = splitTopLevel(text, span.start, span.end);
  return items.length > 1 ? items : undefined;
}

/** Items of the display `span`, whose opening bracket closes at `close`, its last character. */
function displayItems(text: string, span: Span, close: number): Span[] | undefined {
  const items = splitTopLevel(text, span.start + 1, close);
  const first = text[span.start];
  // `[f(a) for a, b in pairs]`: the comma of a comprehension's target splits the text too.
  const commaInFor = items.length > 1 && first === '[' && mayBeComprehension(text, items[0]!);
  if (items.length !== 1 && !commaInFor) return items;
  // `(call())` is the call itself, not a tuple.
  if (first === '(' && !/,\s*$/.test(text.slice(span.start + 1, close))) return undefined;
  // `[solve(word=w) for w in ("a", "b")]`: one element expression, as many times as the loop runs.
  const comprehension = first === '[' ? readComprehension(text, span.start, close, knownNames, nodeAt) : undefined;
  if (!comprehension) return items;
  const { element, count } = comprehension;
  // `[t for t in ...]`: a bare name is most likely the loop's variable, whatever the module binds to it.
  if (count === undefined || isName(text, element)) return UNCOUNTED;
  return new Array<Span>(count).fill(element);
}

/**
 * `[a] + [b for x in (1, 2)]` or `(a,) + (b,)`: the items of each display in
 * turn, when every term between the `+` signs is a display of the first
 * one's kind (a list and a tuple do not add up); UNCOUNTED when a term's
 * length is not known; undefined when `span` is no such sum.
 */
function joinedItems(text: string, span: Span, bracket: string): Span[] | undefined {
  const out: Span[] = [];
  for (let from = span.start; from < span.end;) {
    const plus = scanTo(text, from, span.end, '+');
    if (plus < span.end && text.charCodeAt(plus) !== 43) return undefined; // an unmatched closer
    const term = { start: trimStart(text, from, plus), end: trimEnd(text, from, plus) };
    if (text[term.start] !== bracket) return undefined;
    const close = matchBracket(text, term.start, term.end);
    if (close !== term.end - 1) return undefined;
    const items = displayItems(text, term, close);
    if (!items) return undefined;
    if (items === UNCOUNTED) return UNCOUNTED;
    out.push(...items);
    from = plus + 1;
  }
  return out;
}

/**
 * Task candidates for the items of list `name`, numbered from `firstIndex`.
 * `period`: the items are a loop body's, one pass after another, so item
 * `i` is item `i - period` made again.
 */
function pushElements(ctx: Ctx, items: Span[], name: string, inTaskset = false, firstIndex = 0, period = 0): void {
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

/**
 * Lists bound at module level to a display whose length is known, as of the
 * statement being read: the statement that bound each, and how many items
 * it holds by now (listGrowth.ts).
 */
const knownLists = new Map<string, KnownList>();
/** Whether a name of `knownLists` has characters other than ASCII letters, digits and `_` (asciiNamesIn misses it). */
let listNameNotAscii = false;

/** The names of `a = b = ...` other than the first, each once (`a = a = ...` binds `a` once). */
function uniqueOthers(first: string, more: readonly string[]): string[] {
  return more.filter((name, k) => name !== first && more.indexOf(name) === k);
}

/** Candidates for `names` holding the very objects the candidates [from, to) hold (sharedCall). */
function shareCandidates(facts: PythonFacts, from: number, to: number, names: readonly string[]): void {
  for (const name of names)
    for (let i = from; i < to; i++) {
      const t = facts.tasks[i]!;
      const copy: TaskCandidate = { name, call: t.call, range: t.range, sharedCall: true };
      if (t.index !== undefined) copy.index = t.index;
      if (t.inTaskset) copy.inTaskset = true;
      facts.tasks.push(copy);
    }
}

function mentionsList(text: string, span: Span): boolean {
  for (const name of knownLists.keys()) if (mentionedIn(text, name, span)) return true;
  return false;
}

/**
 * Names whose latest module-level binding is a `for` loop's target: what
 * they hold is the last item, known only by running the module.
 */
const loopBound = new Set<string>();

/** Records that statement `st` binds `name`: a verifier named by it follows what it holds (`followed`). */
function bind(ctx: Ctx, name: string, st: Statement): void {
  ctx.bound.add(name);
  if (st.loop) loopBound.add(name);
  else loopBound.delete(name);
}

/**
 * Gives the tasks made since the last call to `statement` (statementOfTask),
 * and follows the verifiers their new calls name as of offset `at`. A shared
 * call was followed where it was made: what a name held there is its verifier.
 */
function claimTasks(ctx: Ctx, at: number, statement: number): void {
  const { tasks } = ctx.facts;
  while (statementOfTask.length < tasks.length) {
    const task = tasks[statementOfTask.length]!;
    const explicit = task.call.explicit;
    if (explicit?.verifier && !task.sharedCall) explicit.verifier = followed(ctx, explicit.verifier, at);
    statementOfTask.push(statement);
  }
}

/**
 * The names `del a, b` unbinds at module level, when it names plain names
 * only: for the rebinding rules it binds them to nothing, so what they held
 * before is no task discovery finds.
 */
function deletedNames(text: string, st: Span): string[] | undefined {
  if (!keywordAt(text, st.start, 'del')) return undefined;
  const end = expressionEnd(text, st.start, st.end);
  const items = splitTopLevel(text, st.start + 4, end);
  if (items.length === 0 || !items.every((item) => isName(text, item))) return undefined;
  return items.map((item) => text.slice(item.start, item.end));
}

/** Gives the verifier assignments made since the last call to `statement`, following their values as of `at`. */
function claimAssignments(ctx: Ctx, at: number, statement: number): void {
  const assignments = ctx.facts.verifierAssignments;
  while (statementOfAssignment.length < assignments.length) {
    const a = assignments[statementOfAssignment.length]!;
    a.value = followed(ctx, a.value, at);
    statementOfAssignment.push(statement);
  }
}

/**
 * `for t in suite: t.verifier = check(...)`: a loop whose body only sets
 * its target's verifier sets that of each task the iterable yields, and
 * its target holds the last of them after it, as discovery sees the
 * module. The iterable is a known list, `enumerate` of one (`for i, t in
 * enumerate(suite)`), or a display of names holding tasks (`for t in (a,
 * b)`); every item must be a task the index knows, or nothing is read.
 */
function setsVerifiers(ctx: Ctx, st: Statement, k: number): boolean {
  const { text, facts } = ctx;
  const mention = text.indexOf('.verifier', st.start);
  if (mention < 0 || mention >= st.end) return false;
  const lines: { target: string; value: Span; range: Range }[] = [];
  const loop = forLoop(text, st, (from, to) => {
    const v = matchAt(VERIFIER_TARGET, text, from, to);
    if (!v || v[2] !== undefined) return false;
    const value = { start: from + v[0].length, end: to };
    if (value.end <= value.start) return false;
    lines.push({ target: v[1]!, value, range: ctx.lines.rangeAt(from, to) });
    return true;
  });
  if (!loop) return false;
  let iterable = loop.iterable;
  let taskVariable = loop.targets[0]!;
  if (loop.targets.length === 2) {
    const inner = enumerated(ctx, iterable);
    if (!inner) return false;
    iterable = inner;
    taskVariable = loop.targets[1]!;
  } else if (loop.targets.length !== 1) return false;
  if (lines.some((l) => l.target !== taskVariable)) return false;
  // A target naming a known list binds it to an item; a value mentioning one may change it (`pick(suite.pop())`).
  if (loop.targets.some((t) => knownLists.has(t)) || lines.some((l) => mentionsList(text, l.value))) return false;
  const items = itemsOf(ctx, iterable, k);
  if (!items) return false;
  const values: VerifierValue[] = [];
  for (const line of lines) {
    const value = verifierValue(ctx, line.value);
    if (!value || (value.kind === 'name' && loop.targets.includes(value.name))) return false;
    values.push(followed(ctx, value, st.start));
  }
  for (const item of items)
    lines.forEach((line, i) => {
      const assignment: VerifierAssignment = { target: item.name, value: values[i]!, range: line.range };
      if (item.index !== undefined) assignment.index = item.index;
      facts.verifierAssignments.push(assignment);
    });
  const last = items[items.length - 1];
  loopNeverRuns = last === undefined;
  if (last) {
    const range = ctx.lines.rangeAt(st.start, loop.colon);
    facts.tasks.push({ name: intern(taskVariable), call: last.call, sharedCall: true, loopTarget: true, range });
    claimTasks(ctx, st.start, k);
  }
  claimAssignments(ctx, st.start, k);
  return true;
}

/**
 * Whether `st` is a `for` loop without `else` over an iterable known to be
 * empty: its body never runs, so it binds and changes nothing.
 */
function overNothing(ctx: Ctx, st: Statement): boolean {
  const { text } = ctx;
  if (!keywordAt(text, st.start, 'for')) return false;
  const loop = forLoop(text, st, () => true);
  if (!loop) return false;
  for (let at = text.indexOf('\nelse', st.start); at >= 0 && at < st.end; at = text.indexOf('\nelse', at + 1))
    if (!isWordCode(text.charCodeAt(at + 5))) return false;
  lengthBefore = st.start;
  return passesOver(loop.iterable) === 0;
}

/**
 * The loop that builds a taskset one task at a time:
 *
 *     for n in range(3):
 *         t = solve(level=n)
 *         t.verifier = check(expected=str(n))
 *         tasks.append(t)
 *
 * Each pass makes a new task for each name bound to a template call, sets
 * the verifiers written on those names, and appends or extends known lists
 * with them, in the body's order; after the loop each name still holds
 * its last pass's task, as discovery sees the module. Returns the names
 * the body binds when it is read; undefined, reading nothing, when the
 * index cannot follow it: an iterable it cannot count, a name bound twice
 * or used before its binding, a task put in a list twice, a value that
 * mentions a known list, a verifier set on anything but a name the body
 * bound to a task.
 */
function buildsTasks(ctx: Ctx, st: Statement, k: number): string[] | undefined {
  const { text, facts } = ctx;
  const loop = buildingLoop(text, st);
  if (!loop) return undefined;
  const { targets, bindings, verifiers, steps } = loop;
  // A target naming a known list or task binds it to an item; an iterable mentioning a list may be the one grown.
  if (mentionsList(text, loop.iterable) || targets.some((t) => knownLists.has(t) || ctx.taskOf.has(t)))
    return undefined;
  const bindingOf = new Map<string, LoopBindingRead>();
  for (const b of bindings) {
    const name = b.name;
    if (bindingOf.has(name) || targets.includes(name) || knownLists.has(name)) return undefined;
    if (mentionsList(text, b.value)) return undefined;
    const call = parseCall(ctx, b.value)?.facts;
    bindingOf.set(name, { span: b.value, call, placed: undefined, verifiers: [] });
  }
  // A name used before the body binds it holds the previous pass's value (or raises NameError on the first).
  const boundBefore = (name: string, at: number) => {
    const b = bindingOf.get(name);
    return b !== undefined && b.span.end <= at;
  };
  // `tasks[-1].verifier = ...`: the verifier of what the list's latest step before the line appended.
  const lastItems: { step: number; value: VerifierValue; range: Range }[] = [];
  for (const v of verifiers) {
    let b: LoopBindingRead | undefined;
    let step = -1;
    if ('lastItem' in v) {
      step = latestStep(steps, v.target, v.line.start);
      const item = step < 0 || steps[step]!.kind !== 'append' ? undefined : steps[step]!.value;
      if (!item) return undefined; // an item from an earlier pass or from before the loop
      if (isName(text, item)) {
        b = bindingOf.get(text.slice(item.start, item.end));
        if (!b) return undefined;
      } else if (!parseCall(ctx, item)) return undefined;
    } else {
      b = bindingOf.get(v.target);
      if (!b || !boundBefore(v.target, v.line.start)) return undefined;
    }
    if ((b && !b.call) || mentionsList(text, v.value)) return undefined;
    const value = verifierValue(ctx, v.value);
    if (!value || (value.kind === 'name' && (targets.includes(value.name) || bindingOf.has(value.name))))
      return undefined;
    const read = { value: followed(ctx, value, st.start), range: ctx.lines.rangeAt(v.line.start, v.line.end) };
    if (b) b.verifiers.push(read);
    else lastItems.push({ step, ...read });
  }
  // Where each bound name goes in each list's pass: a name put in a list is that very task, once per pass.
  const added = passItems(ctx, steps, st.start);
  if (!added) return undefined;
  for (const [list, pass] of added)
    for (let position = 0; position < pass.length; position++) {
      const item = pass[position]!;
      const name = isName(text, item) ? text.slice(item.start, item.end) : undefined;
      const b = name === undefined ? undefined : bindingOf.get(name);
      if (b) {
        if (b.placed || !boundBefore(name!, item.start)) return undefined;
        b.placed = { list, position, start: list.length };
        pass[position] = b.span; // what the list gets is the value the name was bound to on the same pass
      } else for (const other of bindingOf.keys()) if (mentionedIn(text, other, item)) return undefined;
    }
  lengthBefore = st.start;
  const passes = passesOver(loop.iterable);
  const lengths = new Map<KnownList, number>();
  for (const list of added.keys()) lengths.set(list, list.length);
  // A loop over nothing is overNothing's.
  if (!passes || !addPasses(ctx, added, passes, st)) return undefined;
  for (const { step, ...read } of lastItems) {
    const list = knownLists.get(steps[step]!.list)!;
    const position = itemsBefore(text, steps, step);
    for (let p = 0; p < passes; p++) {
      const index = lengths.get(list)! + p * added.get(list)!.length + position;
      facts.verifierAssignments.push({ target: list.names[0]!, index, ...read });
    }
  }
  const head = ctx.lines.rangeAt(st.start, loop.colon);
  for (const [name, b] of bindingOf) {
    if (!b.call) continue;
    const placed = b.placed;
    if (!placed) {
      // Kept by nothing else: only the last pass's task is left, under this name.
      facts.tasks.push({ name: intern(name), call: b.call, range: ctx.lines.rangeAt(b.span.start, b.span.end) });
      for (const v of b.verifiers) facts.verifierAssignments.push({ target: intern(name), ...v });
      continue;
    }
    const list = placed.list;
    const period = added.get(list)!.length;
    const listName = list.names[0]!;
    let last: TaskCandidate | undefined;
    for (let p = 0; p < passes; p++) {
      const index = placed.start + p * period + placed.position;
      for (const v of b.verifiers) facts.verifierAssignments.push({ target: listName, index, ...v });
      if (p === passes - 1) last = elementAt(facts, listName, index);
    }
    if (last)
      facts.tasks.push({ name: intern(name), call: last.call, sharedCall: true, loopTarget: true, range: head });
  }
  claimTasks(ctx, st.start, k);
  claimAssignments(ctx, st.start, k);
  return [...bindingOf.keys()];
}

/** The latest of `steps` that grows `list` before `at`, or -1. */
function latestStep(steps: readonly GrowthStep[], list: string, at: number): number {
  let found = -1;
  for (let i = 0; i < steps.length && steps[i]!.value.start < at; i++) if (steps[i]!.list === list) found = i;
  return found;
}

/** How many items the steps before `steps[at]` add to its list in one pass (passItems has counted each). */
function itemsBefore(text: string, steps: readonly GrowthStep[], at: number): number {
  let n = 0;
  for (let i = 0; i < at; i++) {
    const step = steps[i]!;
    if (step.list !== steps[at]!.list) continue;
    const items = step.kind === 'append' ? undefined : sequenceItems(text, step.value);
    n += items === undefined ? 1 : items === UNCOUNTED ? 0 : items.length;
  }
  return n;
}

interface LoopBindingRead {
  span: Span;
  /** The template call it is bound to, if it is one. */
  call: CallFacts | undefined;
  /** The list it is put in, where in each pass, and the list's length before the loop. */
  placed: { list: KnownList; position: number; start: number } | undefined;
  verifiers: { value: VerifierValue; range: Range }[];
}

/** The candidate made last for element `index` of the list `name`. */
function elementAt(facts: PythonFacts, name: string, index: number): TaskCandidate | undefined {
  for (let i = facts.tasks.length - 1; i >= 0; i--) {
    const t = facts.tasks[i]!;
    if (t.name === name && t.index === index) return t;
  }
  return undefined;
}

/** The single argument X of `enumerate(X)`, when the builtin is not shadowed. */
function enumerated(ctx: Ctx, span: Span): Span | undefined {
  const { text } = ctx;
  const calleeEnd = calleeEndAt(text, span.start);
  if (calleeEnd !== span.start + 'enumerate'.length || !text.startsWith('enumerate', span.start)) return undefined;
  if (ctx.bound.has('enumerate') || ctx.bound.has('*')) return undefined;
  const open = skipSpaces(text, calleeEnd);
  if (matchBracket(text, open, span.end) !== span.end - 1) return undefined;
  const args = splitTopLevel(text, open + 1, span.end - 1);
  return args.length === 1 && text.charCodeAt(args[0]!.start) !== 42 /* * */ ? args[0] : undefined;
}

/**
 * The tasks a loop's iterable yields, in order, as the names and indexes
 * verifiers are assigned through: each item of a known list, or each name
 * of a display that holds a task. Undefined when any item is not a task
 * the index knows.
 */
function itemsOf(ctx: Ctx, span: Span, k: number): { name: string; index?: number; call: CallFacts }[] | undefined {
  const { text, facts } = ctx;
  const slice = sliceAt(text, span);
  if (slice) {
    const whole = itemsOf(ctx, slice.of, k);
    return whole && sliced(whole, slice);
  }
  if (isName(text, span)) {
    const list = knownLists.get(text.slice(span.start, span.end));
    if (!list) return tupleItems(ctx, intern(text.slice(span.start, span.end)), k);
    // Its elements as of its binding and growth: an earlier binding of the same name may have made others.
    const out = elementsMadeAt(facts, list.statement, list.names[0]!);
    return out.length === list.length ? out : undefined;
  }
  lengthBefore = span.start;
  const items = sequenceItems(text, span);
  if (!items || items === UNCOUNTED) return undefined;
  const out: { name: string; call: CallFacts }[] = [];
  for (const item of items) {
    const held = heldTask(ctx, item);
    if (!held) return undefined;
    out.push({ name: intern(text.slice(item.start, item.end)), call: held.call });
  }
  return out;
}

/** `name[start:stop:step]` with each bound an integer literal or left out. */
interface SliceAt {
  of: Span;
  start: number | undefined;
  stop: number | undefined;
  step: number | undefined;
}

const SLICE_BOUND = /^[ \t]*(?:([-+]?[ \t]*\d+)[ \t]*)?$/;

/** `span` as a slice of a name by integer literals (`suite[1:]`, `suite[:-1]`, `suite[::2]`), else undefined. */
function sliceAt(text: string, span: Span): SliceAt | undefined {
  const nameEnd = identifierEnd(text, span.start, span.end);
  if (nameEnd === span.start || text.charCodeAt(nameEnd) !== 91 /* [ */) return undefined;
  const close = matchBracket(text, nameEnd, span.end);
  if (close !== span.end - 1) return undefined;
  const parts = text.slice(nameEnd + 1, close).split(':');
  if (parts.length < 2 || parts.length > 3) return undefined;
  const bounds: (number | undefined)[] = [];
  for (const part of parts) {
    const m = SLICE_BOUND.exec(part);
    if (!m) return undefined;
    bounds.push(m[1] === undefined ? undefined : Number(m[1].replace(/[ \t]/g, '')));
  }
  // A zero step raises ValueError when the module runs: there is nothing to read.
  if (bounds[2] === 0) return undefined;
  return { of: { start: span.start, end: nameEnd }, start: bounds[0], stop: bounds[1], step: bounds[2] };
}

/** The items a slice takes, as Python's `slice.indices` picks them. */
function sliced<T>(items: readonly T[], slice: SliceAt): T[] {
  const n = items.length;
  const step = slice.step ?? 1;
  const clamp = (bound: number | undefined, low: number, high: number, fallback: number): number => {
    if (bound === undefined) return fallback;
    const at = bound < 0 ? bound + n : bound;
    return at < low ? low : at > high ? high : at;
  };
  const out: T[] = [];
  if (step > 0) {
    const stop = clamp(slice.stop, 0, n, n);
    for (let i = clamp(slice.start, 0, n, 0); i < stop; i += step) out.push(items[i]!);
  } else {
    const stop = clamp(slice.stop, -1, n - 1, -1);
    for (let i = clamp(slice.start, -1, n - 1, n - 1); i > stop; i += step) out.push(items[i]!);
  }
  return out;
}

/**
 * The tasks of the tuple `name` holds at statement `k`: its latest binding
 * before `k` is a tuple display (immutable, so its items are those it was
 * made with) and the index made a task of each of its items.
 */
function tupleItems(ctx: Ctx, name: string, k: number): { name: string; index: number; call: CallFacts }[] | undefined {
  const { text, facts, statements } = ctx;
  let bound = k - 1;
  while (bound >= 0 && !bindsName(statements[bound]!.binds, name)) bound--;
  const parsed = bound >= 0 ? statements[bound]!.parsed : undefined;
  if (parsed?.kind !== 'name' || !parsed.items || parsed.items === UNCOUNTED || text[parsed.rhs.start] === '[')
    return undefined;
  const out = elementsMadeAt(facts, bound, name);
  return out.length === parsed.items.length ? out : undefined;
}

/** The elements `name[0]`, `name[1]`, ... that `statement` made (its binding, and growth claimed by it), in order. */
function elementsMadeAt(
  facts: PythonFacts,
  statement: number,
  name: string,
): { name: string; index: number; call: CallFacts }[] {
  const out: { name: string; index: number; call: CallFacts }[] = [];
  for (let i = 0; i < facts.tasks.length; i++) {
    const t = facts.tasks[i]!;
    if (statementOfTask[i] === statement && t.name === name && t.index === out.length)
      out.push({ name, index: t.index, call: t.call });
  }
  return out;
}

/** Follows `st` when it is a growth step on a known list, or a `for` loop of nothing else (listGrowth.ts). */
function growsKnownList(ctx: Ctx, st: Statement): boolean {
  const { text } = ctx;
  const step = growthStep(text, st.start, expressionEnd(text, st.start, st.end));
  if (step) return growLists(ctx, [step], 1, st);
  const loop = growingLoop(text, st);
  // A target that names a known list or task: inside the loop it holds the items instead.
  if (!loop || mentionsList(text, loop.iterable) || loop.targets.some((t) => knownLists.has(t) || ctx.taskOf.has(t)))
    return false;
  lengthBefore = st.start;
  const passes = passesOver(loop.iterable);
  return passes !== undefined && growLists(ctx, loop.steps, passes, st);
}

/**
 * Adds what `steps` add to known lists, `passes` times over (a loop's body,
 * or one statement). False, adding nothing, when a list is not known, when
 * what an `extend` adds is not, or when a value mentions a known list (it
 * may take from it: `a.append(b.pop())`).
 */
function growLists(ctx: Ctx, steps: readonly GrowthStep[], passes: number, st: Statement): boolean {
  const added = passItems(ctx, steps, st.start);
  return added !== undefined && addPasses(ctx, added, passes, st);
}

/**
 * What one pass of `steps` at `at` adds to each known list, in order, read
 * without adding anything; undefined when growLists would add nothing.
 */
function passItems(ctx: Ctx, steps: readonly GrowthStep[], at: number): Map<KnownList, Span[]> | undefined {
  const { text } = ctx;
  const added = new Map<KnownList, Span[]>();
  lengthBefore = at;
  for (const step of steps) {
    const list = knownLists.get(step.list);
    if (!list || mentionsList(text, step.value)) return undefined;
    const items = step.kind === 'append' ? [step.value] : sequenceItems(text, step.value);
    if (!items || items === UNCOUNTED || hasStarred(text, items)) return undefined;
    const pass = added.get(list);
    if (pass) pass.push(...items);
    else added.set(list, [...items]);
  }
  return added;
}

/** Adds each list's pass `passes` times over; false, adding nothing, when a list would grow past the bound. */
function addPasses(ctx: Ctx, added: ReadonlyMap<KnownList, readonly Span[]>, passes: number, st: Statement): boolean {
  const { facts } = ctx;
  for (const [list, pass] of added) if (list.length + pass.length * passes > MAX_COMPREHENSION_ELEMENTS) return false;
  for (const [list, pass] of added) {
    const items: Span[] = [];
    for (let p = 0; p < passes; p++) items.push(...pass);
    const made = facts.tasks.length;
    pushElements(ctx, items, list.names[0]!, false, list.length, pass.length);
    shareCandidates(facts, made, facts.tasks.length, list.names.slice(1));
    list.length += items.length;
    // The items belong to the list's binding: bound again later, the list and all it grew to are gone.
    claimTasks(ctx, st.start, list.statement);
  }
  return true;
}

/**
 * Keeps knownLists true after statement `k`: binding names to a list
 * display makes it known; any other mention of a known list under any of
 * its names (a call that may change it, an `insert`, a binding, even a
 * comment) makes it unknown, except the growth just followed and
 * `tasks[1].verifier = ...`.
 */
function trackLists(ctx: Ctx, st: Statement, k: number, grew: boolean): void {
  const { text } = ctx;
  const p = st.parsed;
  if (!grew && knownLists.size && mayNameList(text, st)) {
    const skip = p?.kind === 'verifier' ? st.start : -1;
    for (const [name, list] of [...knownLists])
      if (knownLists.has(name) && mentionedInCode(text, name, st, skip) && !heldAsItem(ctx, st, name, list)) {
        // `c = solve()` or `del c` where `c = suite = [...]`: the list is still known by its other names.
        const rebound = reboundOnly(ctx, st, list) ?? reboundAndHeld(ctx, st, list);
        if (rebound) {
          for (const alias of rebound) knownLists.delete(alias);
          const names = list.names.filter((n) => !rebound.includes(n));
          if (names.length) list.names = names;
          continue;
        }
        for (const alias of list.names) knownLists.delete(alias);
        // Which items a statement the index does not read gives a verifier is known only by running it.
        const source = text.slice(st.start, st.end);
        noteListTouched(ctx, st, source, list);
      }
  }
  if (
    p?.kind === 'name' &&
    p.items &&
    p.items !== UNCOUNTED &&
    text[p.rhs.start] === '[' &&
    !hasStarred(text, p.items)
  ) {
    const list = { statement: k, length: p.items.length, names: [p.name, ...uniqueOthers(p.name, p.more ?? [])] };
    for (const name of list.names) {
      knownLists.set(name, list);
      if (!isAsciiName(name)) listNameNotAscii = true;
    }
  }
}

/** Whether `name` is mentioned in `span` (anywhere but at `skip`) outside comments. */
function mentionedInCode(text: string, name: string, span: Span, skip: number): boolean {
  const root = moduleRoot;
  return mentionedIn(text, name, span, skip, root && ((at) => inComment(root, at)));
}

/**
 * Whether `st` may name a known list: one of its names is a list's, or a
 * list's name is not ASCII. Looking its names up in the map, rather than
 * searching the statement for each list, keeps a module of thousands of
 * lists linear (bench/index: `longModules`).
 */
function mayNameList(text: string, st: Span): boolean {
  if (listNameNotAscii) return true;
  for (const name of asciiNamesIn(text, st)) if (knownLists.has(name)) return true;
  return false;
}

/**
 * Whether `st` only puts the list in a display (`pair = (suite, other)`,
 * `more = [suite] + [x]`): every mention of `name` in it is a whole item of
 * the display it binds to another name. That takes nothing from the list
 * and changes nothing in it, so what it holds is still known.
 */
function heldAsItem(ctx: Ctx, st: Statement, name: string, list: KnownList): boolean {
  const p = st.parsed;
  if (p?.kind !== 'name' || !p.items || p.items === UNCOUNTED) return false;
  for (const alias of list.names) if (bindsName(st.binds, alias)) return false;
  return onlyAsItems(ctx.text, name, st, p.items);
}

/** Whether every mention of `name` in `span` is a whole item of `items`. */
function onlyAsItems(text: string, name: string, span: Span, items: readonly Span[]): boolean {
  const re = mentionsOf(name);
  re.lastIndex = span.start;
  for (let m = re.exec(text); m && m.index < span.end; m = re.exec(text)) {
    const at = m.index;
    if (!items.some((item) => item.start === at && item.end === at + name.length)) return false;
  }
  return true;
}

/**
 * The names of `list` that `st` binds again to a display holding the list
 * whole under its other names (`c = suite = [...]`, then `suite = (x, c)`):
 * the list itself is untouched and still known by the names not bound.
 */
function reboundAndHeld(ctx: Ctx, st: Statement, list: KnownList): string[] | undefined {
  const p = st.parsed;
  if (p?.kind !== 'name' || !p.items || p.items === UNCOUNTED) return undefined;
  const names = list.names.filter((n) => bindsName(st.binds, n));
  if (names.length === 0 || names.length === list.names.length) return undefined;
  for (const n of list.names) if (!onlyAsItems(ctx.text, n, p.rhs, p.items)) return undefined;
  return names;
}

/**
 * The names of `list` that `st` only binds again (`c = solve()`, `del c`),
 * when it mentions the list nowhere else: the list itself is untouched.
 * Undefined for any other mention.
 */
function reboundOnly(ctx: Ctx, st: Statement, list: KnownList): string[] | undefined {
  const { text } = ctx;
  if (st.loop || !st.binds) return undefined;
  const bound = typeof st.binds === 'string' ? [st.binds] : st.binds;
  const names = list.names.filter((n) => bound.includes(n));
  if (names.length === 0) return undefined;
  const p = st.parsed;
  let rest: Span | undefined;
  if (p?.kind === 'name') rest = p.rhs;
  else if (keywordAt(text, st.start, 'del')) rest = { start: st.end, end: st.end };
  else rest = simpleAssignment(text, st)?.rhs;
  if (!rest || rest.end < trimEnd(text, st.start, st.end)) return undefined;
  return list.names.some((n) => mentionedIn(text, n, rest)) ? undefined : names;
}

/** The plain task a list item names (`suite = [task, ...]`), when the index knows what that name holds. */
function heldTask(ctx: Ctx, item: Span): TaskCandidate | undefined {
  if (ctx.taskOf.size === 0 || !isName(ctx.text, item)) return undefined;
  return ctx.taskOf.get(ctx.text.slice(item.start, item.end));
}

/**
 * A verifier named by a variable that no module-level statement above binds:
 * if the name is written above anyway (bound in an `if` or a `try`), the
 * index cannot say what it holds; if it is not, the import fails with
 * NameError, and the name is left for the linker to report.
 */
function followed(ctx: Ctx, value: VerifierValue, at: number): VerifierValue {
  if (value.kind !== 'name') return value;
  if (loopBound.has(value.name)) return { kind: 'opaque', range: value.range };
  if (ctx.bound.has(value.name) || ctx.bound.has('*')) return value;
  return writtenBefore(ctx.text, value.name, at) >= 0 ? { kind: 'opaque', range: value.range } : value;
}
