/**
 * Binds call arguments to a template's parameters the way Python would,
 * statically: unknown keywords, missing required arguments and too many
 * positionals. Splatted calls (`*a`, `**kw`) are only checked for what is
 * certain.
 */
import type { TemplateParam } from '../../../common/lspMessages';
import { byCloseness } from './names';

export interface ArgsProblem {
  /** Which argument the problem is about; undefined for the call as a whole. */
  keyword?: string;
  message: string;
  /** An unexpected keyword: the names it could have meant, closest first. */
  renameTo?: string[];
  /** A required parameter nobody passed. */
  missing?: string;
  /** Positional arguments would land in the template's *args. */
  varargs?: true;
}

export interface CallShape {
  positional: number;
  keywords: string[];
  hasSplat: boolean;
}

export function signatureText(name: string, params: readonly TemplateParam[]): string {
  const parts: string[] = [];
  let starred = false;
  for (const p of params) {
    if (p.kind === 'keyword' && !starred) {
      parts.push('*');
      starred = true;
    }
    if (p.kind === 'varargs') starred = true;
    const prefix = p.kind === 'varargs' ? '*' : p.kind === 'varkw' ? '**' : '';
    parts.push(
      `${prefix}${p.name}${p.annotation ? `: ${p.annotation}` : ''}${p.default !== undefined ? ` = ${p.default}` : ''}`,
    );
  }
  return `${name}(${parts.join(', ')})`;
}

/** The parameter a call's positional argument `index` binds, when a plain positional parameter takes it. */
export function positionalParam(params: readonly TemplateParam[], index: number): TemplateParam | undefined {
  let seen = 0;
  for (const p of params) if (p.kind === 'positional' && seen++ === index) return p;
  return undefined;
}

function isNamed(params: readonly TemplateParam[], name: string): boolean {
  for (const p of params) if ((p.kind === 'positional' || p.kind === 'keyword') && p.name === name) return true;
  return false;
}

/** Whether `name` is one of the first `count` positional parameters (bound by a positional argument). */
function boundByPosition(params: readonly TemplateParam[], count: number, name: string): boolean {
  let taken = 0;
  for (const p of params) {
    if (taken >= count) return false;
    if (p.kind !== 'positional') continue;
    if (p.name === name) return true;
    taken++;
  }
  return false;
}

function passedBefore(keywords: readonly string[], index: number, name: string): boolean {
  for (let i = 0; i < index; i++) if (keywords[i] === name) return true;
  return false;
}

const NO_PROBLEMS: readonly ArgsProblem[] = [];

/** A template as calls are checked against it; one whose definition is broken (TemplateFacts.broken) takes anything. */
export interface Signature {
  functionName: string;
  params: readonly TemplateParam[];
  broken?: true;
}

export function checkArgs(template: Signature, call: CallShape): readonly ArgsProblem[] {
  if (template.broken) return NO_PROBLEMS;
  const { functionName: templateName, params } = template;
  // Runs for every task of the workspace and nearly always finds nothing: no array, set or closure
  // is made unless there is a problem to report.
  let out: ArgsProblem[] | undefined;
  let positionalCount = 0;
  let hasVarargs = false;
  let hasVarkw = false;
  for (const p of params) {
    if (p.kind === 'positional') positionalCount++;
    else if (p.kind === 'varargs') hasVarargs = true;
    else if (p.kind === 'varkw') hasVarkw = true;
  }
  // The signature is built only for a message.
  let sig: string | undefined;

  if (!hasVarargs && call.positional > positionalCount) {
    (out ??= []).push({
      message: `${templateName}() takes ${positionalCount} positional argument${positionalCount === 1 ? '' : 's'} but ${call.positional} were given; its signature is ${(sig ??= signatureText(templateName, params))} (fix: remove the extra arguments or pass them by keyword)`,
    });
  }
  if (hasVarargs && call.positional > positionalCount) {
    const star = params.find((p) => p.kind === 'varargs')?.name ?? 'args';
    (out ??= []).push({
      message: `${templateName}() would receive ${call.positional - positionalCount} argument${call.positional - positionalCount === 1 ? '' : 's'} in *${star}; a task's arguments are passed back to the template by name, which cannot fill *${star}, so this task could never start (fix: give ${templateName} named parameters and pass them by keyword)`,
      varargs: true,
    });
  }
  const keywords = call.keywords;
  for (let i = 0; i < keywords.length; i++) {
    const kw = keywords[i]!;
    if (!hasVarkw && kw === 'verifier' && !isNamed(params, kw)) {
      // Not a typo of a parameter: the SDK's Task has a verifier field, but a template's call binds only its
      // own parameters.
      (out ??= []).push({
        keyword: kw,
        message: `${templateName}() got an unexpected keyword argument "verifier": calling a template binds only its own parameters, so the SDK raises TypeError when the module is imported (fix: bind the task to a name, then set \`name.verifier = ...\` on the next line)`,
      });
    } else if (!hasVarkw && !isNamed(params, kw)) {
      const known = [
        ...new Set(params.filter((p) => p.kind === 'positional' || p.kind === 'keyword').map((p) => p.name)),
      ];
      (out ??= []).push({
        keyword: kw,
        message: `${templateName}() got an unexpected keyword argument "${kw}"; its signature is ${(sig ??= signatureText(templateName, params))} (fix: ${known.length ? `use one of ${known.join(', ')}` : 'it takes no keyword arguments; remove it'})`,
        renameTo: byCloseness(
          kw,
          known.filter((k) => !keywords.includes(k)),
        ),
      });
    } else if (boundByPosition(params, call.positional, kw) || passedBefore(keywords, i, kw)) {
      (out ??= []).push({
        keyword: kw,
        message: `${templateName}() got multiple values for argument "${kw}" (fix: pass it either by position or by keyword, not both)`,
      });
    }
  }
  if (!call.hasSplat) {
    for (const p of params) {
      if (
        (p.kind === 'positional' || p.kind === 'keyword') &&
        p.default === undefined &&
        !boundByPosition(params, call.positional, p.name) &&
        !keywords.includes(p.name)
      ) {
        (out ??= []).push({
          message: `${templateName}() is missing the required argument "${p.name}"${p.annotation ? ` (${p.annotation})` : ''} (fix: pass ${p.name}=...)`,
          missing: p.name,
        });
      }
    }
  }
  return out ?? NO_PROBLEMS;
}
