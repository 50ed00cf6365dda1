/**
 * Keyword-argument completion inside a template call, and verifier completion
 * after `task.verifier =` or in `Task(..., verifier=`. The enclosing call is
 * found by scanning the text backwards (not the tree), so it also works
 * while the line being typed does not parse yet.
 */
import { CompletionItemKind, InsertTextFormat, type CompletionItem } from 'vscode-languageserver';
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

/** `task.verifier = ve|`, or `verifier=ve|` inside a call: what is being typed, if anything. */
const VERIFIER_SLOT = /(?:(\.)\s*verifier\s*=|[(,]\s*verifier\s*=)\s*([A-Za-z_]\w*)?$/;

export function complete(ws: Workspace, path: string, text: string, offset: number): CompletionItem[] {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const slot = VERIFIER_SLOT.exec(text.slice(Math.max(lineStart, offset - 200), offset));
  // As a keyword only the SDK's Task(...) takes a verifier; a template's call would fail on import.
  if (slot && (slot[1] || enclosingCall(text, offset)?.callee.at(-1) === 'Task'))
    return completeVerifiers(ws, path, text);
  return completeKeywords(ws, path, text, offset);
}

/**
 * Templates that can verify (an empty first yield), as calls. One from
 * another module comes with its import, so the completed line runs.
 */
export function completeVerifiers(ws: Workspace, path: string, text: string): CompletionItem[] {
  const here = ws.uriOf(path);
  const items: CompletionItem[] = [];
  const lastImport = lastImportLine(text);
  for (const t of ws.index().templates) {
    if (!t.agentless) continue;
    const item: CompletionItem = {
      label: `${t.functionName}(…)`,
      kind: CompletionItemKind.Function,
      detail: `verifier template ${t.env}/${t.id}`,
      documentation: `Agent-less template of environment "${t.env}": it grades the actor's result.`,
      insertText: `${t.functionName}($1)`,
      insertTextFormat: InsertTextFormat.Snippet,
      sortText: t.uri === here ? `0${t.functionName}` : `1${t.functionName}`,
    };
    const module = t.uri === here ? undefined : moduleOf(ws, t.uri);
    if (module && !new RegExp(`\\bimport\\b[^\\n]*\\b${t.functionName}\\b`).test(text)) {
      item.additionalTextEdits = [
        {
          range: { start: { line: lastImport, character: 0 }, end: { line: lastImport, character: 0 } },
          newText: `from ${module} import ${t.functionName}\n`,
        },
      ];
      item.detail += ` (adds: from ${module} import ${t.functionName})`;
    }
    items.push(item);
  }
  return items;
}

/** The line after the last top-of-file import, where a new import goes. */
function lastImportLine(text: string): number {
  let after = 0;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (/^(?:from\s+\S+\s+import|import)\s/.test(lines[i]!)) after = i + 1;
  }
  return after;
}

/** Dotted module name of a workspace file, relative to its root (`envs/judge.py` -> `envs.judge`). */
function moduleOf(ws: Workspace, uri: string): string | undefined {
  for (const p of ws.paths()) {
    if (ws.uriOf(p) !== uri) continue;
    const rel = ws
      .relOf(p)
      .replace(/\.py$/, '')
      .replace(/\/__init__$/, '');
    return /^[A-Za-z_][\w/]*$/.test(rel) ? rel.split('/').join('.') : undefined;
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
