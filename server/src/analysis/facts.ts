/**
 * What one file says, extracted without running it and without keeping its
 * syntax tree: the linker joins these across files. Ranges are LSP ranges
 * (0-based lines, UTF-16 columns).
 */
import type { Position, Range, TemplateParam } from '../../../common/lspMessages';

export type { Range, Position, TemplateParam } from '../../../common/lspMessages';

/** A callee written as a dotted name: `solve`, `j.verify`, `envs.judge.verify`. */
export interface CallFacts {
  /** Shared by every call of the same dotted name (intern.ts). */
  callee: readonly string[];
  range: Range;
  calleeRange: Range;
  positional: number;
  keywords: { name: string; range: Range; literal?: LiteralArg; valueRange?: Range }[];
  /** Positional arguments that are plain literals, by position. */
  positionalLiterals?: { index: number; literal: LiteralArg; range: Range }[];
  /** `*args` / `**kwargs` at the call site: argument checks cannot be exact. */
  hasSplat: boolean;
  /** Set when the call is the SDK's `Task(env=..., id=...)` with both written as literals. */
  explicit?: ExplicitTask;
  /** Where a new keyword argument goes: just before the closing parenthesis. */
  closeParen?: Position;
  /** The verifier a factory sets on the task it makes (factories.ts); a later `task.verifier = ...` replaces it. */
  verifier?: VerifierValue;
  /** A factory's call made again by a later use: what is wrong with it, its first use says (factories.ts). */
  echo?: true;
}

/**
 * `Task(env="e", id="t", args={...}, verifier=...)`: a task written out by
 * hand names its template by environment and id instead of calling it.
 */
export interface ExplicitTask {
  env: string;
  id: string;
  /** The keys of `args=` when it is a dict display with literal keys; undefined when they cannot be known. */
  argKeys?: string[];
  /** The `verifier=` field, which the Task model takes (a template's call does not). */
  verifier?: VerifierValue;
}

/** A plain literal argument: the only values whose type is known without running anything. */
export interface LiteralArg {
  kind: 'str' | 'int' | 'float' | 'bool' | 'none';
  /** The literal's value as Python would print it (`str` without quotes). */
  value: string;
}

/**
 * A verifier is a template call or the name of a module-level task; `None`
 * takes it away. `opaque`: a name bound where the index does not follow
 * (inside an `if` or `try`), whose value it cannot judge.
 */
export type VerifierValue =
  | { kind: 'call'; call: CallFacts; range: Range }
  | { kind: 'name'; name: string; range: Range }
  | { kind: 'none'; range: Range }
  | { kind: 'opaque'; range: Range };

export interface TaskCandidate {
  /** Variable the task is bound to. */
  name: string;
  /** Set for elements of a list, tuple or Taskset. */
  index?: number;
  /** The element is in a Taskset (which, unlike a list, takes any attribute). */
  inTaskset?: true;
  /**
   * A comprehension's element after the first: the first one's call made
   * again (a copy, since each element is a Task of its own), whose argument
   * problems and template use the first reports.
   */
  repeated?: true;
  /**
   * The call is an earlier candidate's, the same object: the second name of
   * `a = b = solve()`, a list item naming a task. Its problems and use are
   * reported once, by the first candidate still listed that holds it.
   */
  sharedCall?: true;
  /** A module-level `for` loop's target, which still holds the last task it went over. */
  loopTarget?: true;
  /**
   * Functions of other modules (dotted as written, `attach`, `helpers.attach`)
   * the Task is passed to whole, itself or in its list. If one of them sets
   * verifiers, only running it says which verifier the Task ends with, so the
   * linker does not list it.
   */
  givenTo?: readonly (readonly string[])[];
  /**
   * Its verifier is known only by running the module (set under an `if`, by
   * a function it is passed to): the linker checks its call but does not
   * list it. Other statements may still name it (`b.verifier = task`).
   */
  unlisted?: true;
  call: CallFacts;
  range: Range;
}

export interface ShadowedCall {
  call: CallFacts;
  role: 'task' | 'verifier';
}

export interface VerifierAssignment {
  target: string;
  index?: number;
  value: VerifierValue;
  range: Range;
}

export interface EnvironmentFacts {
  variable: string;
  name: string;
  range: Range;
}

export type FirstYield = { kind: 'empty' } | { kind: 'literal'; text: string } | { kind: 'other' };

export interface ResultShape {
  /** Keys of a literal dict, or ['score'] for a number; undefined when unknown. */
  keys?: string[];
  range: Range;
  /** Set when a literal dict has no numeric score. */
  scoreProblem?: 'missing' | 'not-numeric';
}

/** What a template's body says: its yields, its result and what it reads from the actor. */
export interface BodyFacts {
  yieldCount: number;
  /** A yield inside a loop: the count says nothing about how many run. */
  yieldInLoop: boolean;
  firstYield?: FirstYield;
  firstYieldRange?: Range;
  result?: ResultShape;
  readsKeys: { key: string; range: Range }[];
  /** Calls yielded without `await` (`yield combine(...)`): linking decides which are coroutines. */
  unawaitedCalls?: { callee: readonly string[]; range: Range }[];
}

export interface TemplateFacts extends BodyFacts {
  id: string;
  /** Environment variable the decorator is read from (`actor` in `@actor.template`). */
  envVariable: string;
  functionName: string;
  description: string;
  range: Range;
  nameRange: Range;
  decoratorRange: Range;
  /** Shared by every template with the same parameter text (templateBody.ts). */
  params: readonly TemplateParam[];
  isAsync: boolean;
  /**
   * Its definition holds a syntax error that the parser recovered around (a parameter list left open, a `def`
   * without its colon): its parameters and body are guesses, so no call is checked against them and no problem
   * of its body is said; the syntax error is.
   */
  broken?: true;
}

export interface ImportBinding {
  local: string;
  /** Absolute dotted module, or relative with leading dots (`.judge`, `..pkg`). */
  module: string;
  /** Imported name; undefined for `import a.b as x` (binds the module). */
  name?: string;
}

/** A module-level function that makes a task and returns it (factories.ts), as other modules may import it. */
export interface FactoryFacts {
  name: string;
  /** The template call its body makes. */
  call: CallFacts;
  /** The verifier its body sets on that task. */
  verifier?: VerifierValue;
}

export interface PythonFacts {
  kind: 'python';
  importsHud: boolean;
  imports: ImportBinding[];
  environments: EnvironmentFacts[];
  templates: TemplateFacts[];
  tasks: TaskCandidate[];
  verifierAssignments: VerifierAssignment[];
  /** Names defined at module level by `def`/`class` that are not templates. */
  plainDefinitions: string[];
  /** The plain definitions whose body sets a verifier (`t.verifier = ...`): other modules may pass them tasks. */
  verifyingDefinitions?: string[];
  /** The plain definitions that make a task and return it, for modules that import them. */
  factories?: FactoryFacts[];
  /** Names bound at module level to values the index does not read (`x = None`, `x = a.b`). */
  otherBindings?: string[];
  /**
   * Names of environments this module builds where the index reads no templates (inside a function, as test
   * modules do): a `Task(env=..., id=...)` of one of them here is not reported as naming an unknown template.
   */
  unreadEnvironments?: string[];
  v5Scenarios: { envVariable: string; functionName: string; range: Range }[];
  serviceAccess: Range[];
  hasSyntaxErrors: boolean;
  /** Calls of tasks and verifiers bound over by a later binding (rebinding.ts): not tasks, but they run on import. */
  shadowedCalls?: ShadowedCall[];
  /** What the HUD SDK itself would reject on import (sdkChecks.ts). */
  sdkProblems?: FileProblem[];
  /** Why Python could not import this file (syntax, NUL bytes, encoding, nesting), if so. */
  unimportable?: FileProblem[];
}

export interface JsonTaskRow {
  row: number;
  env: string;
  id: string;
  args: Record<string, unknown>;
  argsRange: Range;
  range: Range;
  verifier?: { env: string; id: string; args: Record<string, unknown>; range: Range };
}

export interface JsonTaskFacts {
  kind: 'json-tasks';
  rows: JsonTaskRow[];
  /** Rows that are not tasks in a file that holds tasks. */
  issues?: FileProblem[];
}

export interface HarborFacts {
  kind: 'harbor';
  /** Workspace-relative POSIX path of the task directory. */
  ref: string;
  label: string;
  environmentMode?: 'shared' | 'separate';
  /** Files the task needs beside task.toml (relative to its folder); alternatives are separated by "|". */
  /** False when [agent] user names a non-root user (the image's user is unknown here). */
  agentMayBeRoot?: boolean;
  /** A declared artifact copied over the folder a separate verifier's tests run in (its workdir), or above it. */
  artifactOverTests?: { artifact: string; workdir: string };
  /** `${VAR}`s of the host that `[environment] env` puts in the agent's container. */
  hostVariables?: string[];
  requiredFiles?: {
    path: string;
    code: 'harbor-missing-instruction' | 'harbor-missing-test-sh' | 'harbor-missing-tests-dockerfile';
    fix: string;
  }[];
  issues: FileProblem[];
}

/** A `<env>.golden.jsonl` file: its rows, read but not yet bound to tasks. */
export interface GoldenFacts {
  kind: 'golden';
  rows: GoldenRowFacts[];
  /** Lines that are not rows. */
  issues: FileProblem[];
}

export interface GoldenRowFacts {
  /** 0-based. */
  line: number;
  task: string;
  /** The row's text on its line. */
  range: Range;
  /** The task value's quoted string, or the row when it cannot be found. */
  taskRange: Range;
  /** The answer as JSON, shortened. */
  answer: string;
  /** The reward expectation, as the CLI prints it (`== 1`). */
  expect: string;
}

/** A `docker-compose.yaml`: what in it reaches this machine, said only when it is a task's (composeTask.ts). */
export interface ComposeFacts {
  kind: 'compose';
  reaches: FileProblem[];
}

export interface SkippedFacts {
  kind: 'skipped';
  problems: FileProblem[];
}

export type FileFacts = PythonFacts | JsonTaskFacts | HarborFacts | GoldenFacts | ComposeFacts | SkippedFacts;

export type Severity = 'error' | 'warning' | 'info';

/** A diagnostic before it is tied to a URI. */
export interface FileProblem {
  code: string;
  severity: Severity;
  message: string;
  range: Range;
  /** What a quick fix needs beyond the document's text (see features/codeActions.ts). */
  fix?: FixData;
}

/** Travels in `Diagnostic.data`, so the code action needs no second analysis. */
export type FixData =
  | { kind: 'rename-keyword'; names: string[] }
  | { kind: 'add-keyword'; name: string; at: Position; leadingComma: boolean }
  | { kind: 'replace-literal'; choices: string[] }
  | { kind: 'delete'; uri: string; range: Range; title: string }
  | { kind: 'replace'; uri: string; range: Range; newText: string; title: string };
