/**
 * What the readers of one Python module share while it is extracted
 * (pythonFacts.ts and the readers beside it): the module's context, its
 * module-level statements as the layout found them, the assignments and
 * calls read from them, and which statement made each task.
 */
import type { CallFacts, Range, TaskCandidate, VerifierValue } from './facts';
import type { Span } from './pyScan';
import type { HudNames } from './pythonImports';
import type { TemplateContext } from './pythonTemplates';
import type { Binds } from './rebinding';

/** The module being extracted; `bound` also serves followed(). */
export interface Ctx extends TemplateContext {
  hud: HudNames;
  /** The plain task each module-level name holds after the statements read so far, where the index knows it. */
  taskOf: Map<string, TaskCandidate>;
  /** The module-level statements, in order. */
  statements: Statement[];
  /**
   * The module's functions that make a task (factories.ts), by name: a call
   * of one below its `def` is the task it makes (moduleFactories.ts).
   */
  factories: Map<string, Factory>;
}

/** A module-level function that makes a task and returns it. */
export interface Factory {
  /** Where its `def` starts: a call above it raises NameError. */
  defined: number;
  call: ParsedCall;
  verifier: VerifierValue | undefined;
  /** Whether a call of it was read already: its problems are said once. */
  used: boolean;
}

/** What a module-level statement is, by its first characters. */
export type StatementKind = 'import' | 'decorated' | 'definition' | 'simple' | 'other';

/** A module-level statement: from where it starts to where the next one does. */
export interface Statement extends Span {
  kind: StatementKind;
  /** A simple statement's assignment, read once (see extractPythonFacts). */
  parsed: ParsedAssignment | undefined;
  /** The module-level names it binds (rebinding.ts). */
  binds: Binds;
  /** A `for` loop, whose targets (its binds) hold values known only by running the module. */
  loop?: true;
  /** A loop read whole (its binds are all it binds), whose mentions of other names change nothing. */
  exact?: true;
  /** Part of a stretch of the module the parser could not read (pythonFacts.ts, recoverStatements). */
  broken?: true;
}

/** Which statement made each task candidate and verifier assignment of the module being read (rebinding.ts). */
export const statementOfTask: number[] = [];
export const statementOfAssignment: number[] = [];

/** A plain call (`dotted.name(args)`): its facts, and where each argument is. */
export type ParsedCall = { facts: CallFacts; args: ArgSpan[] };

/** A module-level `name = rhs` or `target.verifier = value`, read once. */
export type ParsedAssignment =
  | { kind: 'verifier'; target: string; index?: number; value: VerifierValue; range: Range }
  | {
      kind: 'name';
      name: string;
      /** The other targets of a chained assignment (`a = b = solve()`), which all hold the same value. */
      more: string[] | undefined;
      rhs: Span;
      statement: Span;
      call?: ParsedCall;
      items?: Span[];
    };

/** One argument of a call as written: its keyword, whether it is `*x` or `**x`, its whole text and its value's. */
export interface ArgSpan {
  keyword?: string;
  splat: boolean;
  span: Span;
  value: Span;
}

/** A list bound at module level whose items the index follows, by the statement that bound it (listGrowth.ts). */
export interface KnownList {
  statement: number;
  length: number;
  /**
   * Every name it is bound to (`a = b = []`) and still held by; the first
   * one's candidates are made, the others share their calls.
   */
  names: readonly string[];
}

/** What sequenceItems gives for a list comprehension it cannot count: a list, of no element the index knows. */
export const UNCOUNTED: Span[] = [];

/** Local names the module's imports bind (from any module). */
export const imported = new Set<string>();

/**
 * Empties a set or map the readers reuse from module to module. `clear()`
 * allocates a new table even for an empty one, and most stay empty.
 */
export function emptied(c: Set<unknown> | Map<unknown, unknown>): void {
  if (c.size > 0) c.clear();
}
