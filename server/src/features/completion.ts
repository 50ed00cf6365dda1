/**
 * Keyword-argument completion inside a template call. The enclosing call is
 * found by scanning the text backwards (not the tree), so it also works
 * while the line being typed does not parse yet.
 */
import { CompletionItemKind, type CompletionItem } from 'vscode-languageserver';
import { Resolver } from '../analysis/resolver';
import type { Workspace } from '../analysis/workspace';

const MAX_SCAN = 4000;

export interface EnclosingCall {
  callee: string[];
  /** Keywords already written before the cursor. */
  written: Set<string>;
}

export function enclosingCall(text: string, offset: number): EnclosingCall | undefined {
  let depth = 0;
  const stop = Math.max(0, offset - MAX_SCAN);
  for (let i = offset - 1; i >= stop; i--) {
    const c = text[i]!;
    if (c === ')' || c === ']' || c === '}') depth++;
    else if (c === '[' || c === '{') {
      if (depth === 0) return undefined;
      depth--;
    } else if (c === '(') {
      if (depth > 0) {
        depth--;
        continue;
      }
      const head = /([A-Za-z_][\w]*(?:\s*\.\s*[A-Za-z_][\w]*)*)\s*$/.exec(text.slice(Math.max(0, i - 200), i));
      if (!head) return undefined;
      const args = text.slice(i + 1, offset);
      const written = new Set([...args.matchAll(/(?:^|[(,\s])([A-Za-z_]\w*)\s*=(?!=)/g)].map((m) => m[1]!));
      return { callee: head[1]!.split('.').map((s) => s.trim()), written };
    }
  }
  return undefined;
}

export function completeKeywords(ws: Workspace, path: string, text: string, offset: number): CompletionItem[] {
  const call = enclosingCall(text, offset);
  if (!call) return [];
  const r = new Resolver(ws, ws.roots, new Set()).callee(path, call.callee);
  if (r.kind !== 'template') return [];
  const items: CompletionItem[] = [];
  for (const p of r.template.params) {
    if (p.kind === 'varargs' || p.kind === 'varkw' || call.written.has(p.name)) continue;
    items.push({
      label: `${p.name}=`,
      kind: CompletionItemKind.Variable,
      detail: `${p.annotation ?? 'Any'}${p.default !== undefined ? ` = ${p.default}` : ' (required)'}`,
      documentation: `Argument of template ${r.env}/${r.template.id}`,
      insertText: `${p.name}=`,
      sortText: `${p.default === undefined ? 0 : 1}${p.name}`,
    });
  }
  return items;
}
