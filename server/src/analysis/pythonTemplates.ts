/**
 * Templates of a Python module as the index reads them: a `def` decorated
 * with `@env.template(...)` (or `@env.scenario`, the v5 API, noted for its
 * diagnostic), its id, description, parameters and annotations, and what
 * its body yields and reads (templateBody.ts). Part of the extraction
 * (pythonFacts.ts); `service_access = True` is found here too.
 */
import { annotationProblems, type AnnotatedTemplate } from './annotations';
import type { BodyFacts, FileProblem, PythonFacts, Range, TemplateFacts, TemplateParam } from './facts';
import { intern } from './intern';
import type { LineMap } from './lines';
import {
  definitionHeadAt,
  envDecoratorAt,
  identifierEnd,
  keywordValueAt,
  matchAt,
  matchBracket,
  skipDecorators,
  splitTopLevel,
  trimEnd,
  trimStart,
  type Span,
} from './pyScan';
import { identifierAt, literalString, rangeOf, stringValue } from './syntax';
import { readBody, readParams } from './templateBody';
import type { ModuleRoot } from './moduleTree';
import type { SyntaxNode } from './treeSitter';

/** What reading a template needs of the module being extracted (pythonFacts.ts keeps it). */
export interface TemplateContext {
  text: string;
  lines: LineMap;
  root: ModuleRoot;
  facts: PythonFacts;
  /** Names bound by the module-level statements read so far (annotations.ts). */
  bound: Set<string>;
  /** `from __future__ import annotations`: annotations are evaluated from their text. */
  futureAnnotations: boolean;
  /** What annotations.ts found wrong with the templates' annotations. */
  annotationProblems: FileProblem[] | undefined;
}

/**
 * Reads the decorated statement `st`: a template for each decorator of an
 * environment the module binds (`envVars`) or imports (`imported`), else a
 * plain definition. Returns the name the statement binds.
 */
export function readDecorated(
  ctx: TemplateContext,
  st: Span & { broken?: true },
  envVars: Set<string>,
  imported: Set<string>,
): string | undefined {
  const { text, facts, lines } = ctx;
  const decorators: Span[] = [];
  const at = skipDecorators(text, st, decorators);
  if (at >= st.end) return undefined;
  const defHead = definitionHeadAt(text, at, Math.min(text.length, at + 300));
  if (!defHead) return undefined;
  const functionName = intern(text.slice(defHead.nameAt, defHead.nameEnd));
  const defStart = at;
  let found = false;
  for (const dec of decorators) {
    if (!facts.importsHud) break;
    const m = envDecoratorAt(text, dec.start, dec.end);
    if (!m) continue;
    const envVariable = intern(text.slice(m.nameAt, m.nameEnd));
    if (!envVars.has(envVariable) && !imported.has(envVariable)) continue;
    const decRange = lines.rangeAt(dec.start, dec.end);
    if (m.kind === 'scenario') {
      facts.v5Scenarios.push({ envVariable, functionName, range: decRange });
      continue;
    }
    if (defHead.isClass || found) continue;
    const afterName = m.end;
    let id: string | undefined;
    let description: string | undefined;
    if (text[afterName] === '(') {
      const close = matchBracket(text, afterName, dec.end);
      if (close > 0) {
        splitTopLevel(text, afterName + 1, close).forEach((a, i) => {
          const valueAt = keywordValueAt(text, a.start, a.end);
          const value = literalString(text.slice(valueAt < 0 ? a.start : valueAt, a.end));
          const key =
            valueAt >= 0
              ? text.slice(a.start, identifierEnd(text, a.start))
              : i === 0
                ? 'id'
                : i === 1
                  ? 'description'
                  : undefined;
          if (value === undefined) return;
          if (key === 'id') id = intern(value, true);
          else if (key === 'description') description = value;
        });
      }
    }
    const nameAt = defHead.nameAt;
    const paramsOpen = defHead.end;
    const paramsClose = text[paramsOpen] === '(' ? matchBracket(text, paramsOpen, st.end) : -1;
    const params = paramsClose > 0 ? readParams(text, paramsOpen + 1, paramsClose) : [];
    checkAnnotations(ctx, functionName, defStart, params, paramsOpen, paramsClose);
    const template: Omit<TemplateFacts, keyof BodyFacts> = {
      id: id ?? functionName,
      envVariable,
      functionName,
      description: description ?? '',
      range: lines.rangeAt(defStart, trimEndOf(text, defStart, st.end)),
      nameRange: lines.rangeAt(nameAt, nameAt + functionName.length),
      decoratorRange: decRange,
      params,
      isAsync: defHead.isAsync,
    };
    // Only a template being typed gets the field; the others keep one shape.
    if (st.broken || paramsClose < 0) template.broken = true;
    const body = { start: defStart, end: st.end };
    facts.templates.push(
      readBody(ctx.root, text, lines, body, Math.max(paramsClose, paramsOpen), !facts.hasSyntaxErrors, template),
    );
    found = true;
  }
  if (!found) facts.plainDefinitions.push(functionName);
  return functionName;
}

const RETURN_ANNOTATION = /[ \t]*->[ \t]*([^:\n]+?)[ \t]*:/y;

/** Collects the problems of a template's annotations that name nothing when it registers (annotations.ts). */
function checkAnnotations(
  ctx: TemplateContext,
  functionName: string,
  defStart: number,
  params: readonly TemplateParam[],
  paramsOpen: number,
  paramsClose: number,
): void {
  const returns =
    paramsClose > 0 && ctx.text.startsWith('->', trimStart(ctx.text, paramsClose + 1, ctx.text.length))
      ? matchAt(RETURN_ANNOTATION, ctx.text, paramsClose + 1, ctx.text.length)
      : null;
  if (!returns && knownAnnotations.has(params)) return;
  const t: AnnotatedTemplate = { functionName, defStart, params, paramsFrom: paramsOpen, paramsTo: paramsClose };
  if (returns) t.returns = returns[1]!;
  const found = annotationProblems(ctx.text, ctx.lines, t, ctx.bound, ctx.futureAnnotations);
  if (found.length) (ctx.annotationProblems ??= []).push(...found);
  // Parameter lists are shared between files (readParams); one that names builtins only is never checked again.
  else if (!returns && params.every((p) => !p.annotation || BUILTIN_ANNOTATION.test(p.annotation)))
    knownAnnotations.add(params);
}

/** Annotations that are one builtin type: nothing to look up, in any module. */
const BUILTIN_ANNOTATION = /^(?:int|str|float|bool|bytes|dict|list|tuple|set|object|None)$/;
/** Parameter lists whose annotations are all builtins (the lists readParams shares between files). */
const knownAnnotations = new WeakSet<readonly TemplateParam[]>();

function trimEndOf(text: string, from: number, end: number): number {
  let e = end;
  // drop trailing blank lines and comments that belong to no statement
  for (;;) {
    e = trimEnd(text, from, e);
    const lineStart = text.lastIndexOf('\n', e - 1) + 1;
    const first = trimStart(text, lineStart, e);
    if (lineStart > from && first < e && text.charCodeAt(first) === 35 /* # */) e = lineStart;
    else return e;
  }
}

/** `service_access=True` keywords and `"service_access": True` dict entries (rare, so read from the tree). */
export function findServiceAccess(root: ModuleRoot, text: string): Range[] {
  const out: Range[] = [];
  for (let at = text.indexOf('service_access'); at >= 0; at = text.indexOf('service_access', at + 1)) {
    let node: SyntaxNode | null = root.descendantForIndex(at, at + 1);
    for (let depth = 0; node && depth < 4; depth++, node = node.parent) {
      const type = node.type;
      if (type === 'keyword_argument') {
        if (
          identifierAt(text, node.startIndex) === 'service_access' &&
          node.childForFieldName('value')?.type === 'true'
        )
          out.push(rangeOf(node));
        break;
      }
      if (type === 'pair') {
        const key = node.childForFieldName('key');
        if (key && stringValue(key, text) === 'service_access' && node.childForFieldName('value')?.type === 'true')
          out.push(rangeOf(node));
        break;
      }
    }
  }
  return out;
}
