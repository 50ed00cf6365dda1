/**
 * Binds call arguments to a template's parameters the way Python would,
 * statically: unknown keywords, missing required arguments and too many
 * positionals. Splatted calls (`*a`, `**kw`) are only checked for what is
 * certain.
 */
import type { TemplateParam } from '../protocol';

export interface ArgsProblem {
  /** Which argument the problem is about; undefined for the call as a whole. */
  keyword?: string;
  message: string;
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
    parts.push(`${prefix}${p.name}${p.annotation ? `: ${p.annotation}` : ''}${p.default !== undefined ? ` = ${p.default}` : ''}`);
  }
  return `${name}(${parts.join(', ')})`;
}

export function checkArgs(templateName: string, params: readonly TemplateParam[], call: CallShape): ArgsProblem[] {
  const out: ArgsProblem[] = [];
  const positional = params.filter((p) => p.kind === 'positional');
  const named = new Set(params.filter((p) => p.kind === 'positional' || p.kind === 'keyword').map((p) => p.name));
  const hasVarargs = params.some((p) => p.kind === 'varargs');
  const hasVarkw = params.some((p) => p.kind === 'varkw');
  const sig = signatureText(templateName, params);

  if (!hasVarargs && call.positional > positional.length) {
    out.push({
      message: `${templateName}() takes ${positional.length} positional argument${positional.length === 1 ? '' : 's'} but ${call.positional} were given; its signature is ${sig} (fix: remove the extra arguments or pass them by keyword)`,
    });
  }
  const bound = new Set(positional.slice(0, call.positional).map((p) => p.name));
  for (const kw of call.keywords) {
    if (!named.has(kw) && !hasVarkw) {
      const known = [...named];
      out.push({
        keyword: kw,
        message: `${templateName}() got an unexpected keyword argument "${kw}"; its signature is ${sig} (fix: ${known.length ? `use one of ${known.join(', ')}` : 'it takes no keyword arguments; remove it'})`,
      });
    } else if (bound.has(kw)) {
      out.push({ keyword: kw, message: `${templateName}() got multiple values for argument "${kw}" (fix: pass it either by position or by keyword, not both)` });
    }
    bound.add(kw);
  }
  if (!call.hasSplat) {
    for (const p of params) {
      if ((p.kind === 'positional' || p.kind === 'keyword') && p.default === undefined && !bound.has(p.name)) {
        out.push({
          message: `${templateName}() is missing the required argument "${p.name}"${p.annotation ? ` (${p.annotation})` : ''} (fix: pass ${p.name}=...)`,
        });
      }
    }
  }
  return out;
}
