/**
 * A template's annotations must name something when the module is imported:
 * the SDK reads the template's signature with its annotations evaluated
 * when `@env.template` registers it, and a name that is not bound then
 * (imported only under `if TYPE_CHECKING:`, or defined further down) makes
 * that import fail with NameError (server/README.md, "Annotations").
 *
 * The check is conservative: a name counts as bound when it is a builtin,
 * bound by a module-level statement before the template, or written
 * anywhere before the template outside an `if TYPE_CHECKING:` block (in a
 * `try`, an `if`, even a comment). Only a name that appears nowhere else
 * before the template, or only under TYPE_CHECKING, is reported.
 */
import { problem } from './diagnostics';
import type { FileProblem, TemplateParam } from './facts';
import type { LineMap } from './lines';
import { writtenBefore } from './writtenNames';

/** Python's builtins (3.11 to 3.13), which every module sees without binding them. */
const BUILTINS = new Set(
  (
    'ArithmeticError AssertionError AttributeError BaseException BaseExceptionGroup BlockingIOError ' +
    'BrokenPipeError BufferError BytesWarning ChildProcessError ConnectionAbortedError ConnectionError ' +
    'ConnectionRefusedError ConnectionResetError DeprecationWarning EOFError Ellipsis EncodingWarning ' +
    'EnvironmentError Exception ExceptionGroup False FileExistsError FileNotFoundError FloatingPointError ' +
    'FutureWarning GeneratorExit IOError ImportError ImportWarning IndentationError IndexError ' +
    'InterruptedError IsADirectoryError KeyError KeyboardInterrupt LookupError MemoryError ' +
    'ModuleNotFoundError NameError None NotADirectoryError NotImplemented NotImplementedError OSError ' +
    'OverflowError PendingDeprecationWarning PermissionError ProcessLookupError PythonFinalizationError ' +
    'RecursionError ReferenceError ResourceWarning RuntimeError RuntimeWarning StopAsyncIteration ' +
    'StopIteration SyntaxError SyntaxWarning SystemError SystemExit TabError TimeoutError True TypeError ' +
    'UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError UnicodeTranslateError ' +
    'UnicodeWarning UserWarning ValueError Warning ZeroDivisionError abs aiter all anext any ascii bin bool ' +
    'breakpoint bytearray bytes callable chr classmethod compile complex copyright credits delattr dict dir ' +
    'divmod enumerate eval exec exit filter float format frozenset getattr globals hasattr hash help hex id ' +
    'input int isinstance issubclass iter len license list locals map max memoryview min next object oct ' +
    'open ord pow print property quit range repr reversed round set setattr slice sorted staticmethod str ' +
    'sum super tuple type vars zip'
  ).split(' '),
);

/** Words that may sit in an annotation's expression without naming anything. */
const KEYWORDS = new Set(['and', 'or', 'not', 'is', 'in', 'if', 'else', 'lambda']);

const SIMPLE_NAME = /^[A-Za-z_]\w*$/;
const STRING = /([rRbBuUfF]{0,2})("""|'''|"|')((?:\\.|(?!\2)[^\\])*)\2/g;
const NAME = /(\.\s*)?\b([A-Za-z_]\w*)/g;

/**
 * The names an annotation looks up when it is evaluated. Under `from
 * __future__ import annotations` its text is evaluated once, so a quoted
 * annotation is just a str; without it, a quoted annotation is a string
 * that is evaluated in turn.
 */
export function annotationNames(annotation: string, futureAnnotations: boolean): string[] {
  if (SIMPLE_NAME.test(annotation)) return [annotation];
  const whole = /^([rRuU]?)("""|'''|"|')([\s\S]*)\2$/.exec(annotation.trim());
  // Without the future import a quoted annotation is a string the SDK evaluates; with it, the quotes make a str.
  if (whole && !whole[3]!.includes(whole[2]!)) return futureAnnotations ? [] : annotationNames(whole[3]!.trim(), true);
  const code = annotation.replace(STRING, '""');
  const out: string[] = [];
  for (const m of code.matchAll(NAME)) {
    const name = m[2]!;
    if (m[1] || KEYWORDS.has(name) || out.includes(name)) continue; // an attribute, a keyword, seen
    out.push(name);
  }
  return out;
}

export interface AnnotatedTemplate {
  functionName: string;
  /** Where the `def` starts: what is bound by then is what the annotations see. */
  defStart: number;
  params: readonly TemplateParam[];
  /** `-> X`, if written. */
  returns?: string;
  /** Offsets of the parameter list, to place a problem on the annotation. */
  paramsFrom: number;
  paramsTo: number;
}

/**
 * Problems for the annotations of `t` that name nothing when it registers.
 * `bound`: the names module-level statements bound before it.
 */
export function annotationProblems(
  text: string,
  lines: LineMap,
  t: AnnotatedTemplate,
  bound: ReadonlySet<string>,
  futureAnnotations: boolean,
): FileProblem[] {
  if (bound.has('*')) return []; // a star import may bind anything
  let out: FileProblem[] | undefined;
  const check = (what: string, annotation: string, searchFrom: number) => {
    // Most annotations are one builtin or imported name: no list for them.
    if (SIMPLE_NAME.test(annotation) && (BUILTINS.has(annotation) || bound.has(annotation))) return;
    for (const name of annotationNames(annotation, futureAnnotations)) {
      if (BUILTINS.has(name) || bound.has(name) || name.startsWith('__')) continue;
      const written = writtenBefore(text, name, t.defStart);
      if (written >= 0) continue;
      const at = text.indexOf(annotation, searchFrom);
      const range = at >= 0 ? lines.rangeAt(at, at + annotation.length) : lines.rangeAt(t.defStart, t.defStart + 3);
      const why = written === -2 ? `is imported only under \`if TYPE_CHECKING:\`` : 'is not defined before it';
      (out ??= []).push(
        problem(
          'template-annotation-unresolved',
          range,
          `${what} of template ${t.functionName} names ${name}, which ${why}; the SDK evaluates a template's annotations when it registers the template, so importing this module fails with NameError (fix: import or define ${name} at module level above the template)`,
        ),
      );
    }
  };
  for (const p of t.params) if (p.annotation) check(`the annotation of "${p.name}"`, p.annotation, t.paramsFrom);
  if (t.returns) check('the return annotation', t.returns, t.paramsTo);
  return out ?? [];
}
