/** Document symbols (environments > templates, tasks) and workspace symbols. */
import { SymbolKind, type DocumentSymbol, type SymbolInformation } from 'vscode-languageserver';
import type { Workspace } from '../analysis/workspace';

export function documentSymbols(ws: Workspace, path: string): DocumentSymbol[] {
  const link = ws.link(path);
  const facts = ws.facts(path);
  if (!link) return [];
  const out: DocumentSymbol[] = [];
  const byEnv = new Map<string, DocumentSymbol>();
  if (facts?.kind === 'python') {
    for (const e of facts.environments) {
      const sym: DocumentSymbol = {
        name: e.name,
        detail: `Environment (${e.variable})`,
        kind: SymbolKind.Module,
        range: e.range,
        selectionRange: e.range,
        children: [],
      };
      byEnv.set(e.name, sym);
      out.push(sym);
    }
  }
  for (const t of link.templates) {
    const sym: DocumentSymbol = {
      name: t.id,
      detail: `template ${t.functionName}`,
      kind: SymbolKind.Function,
      range: t.range,
      selectionRange: t.range,
    };
    const parent = byEnv.get(t.env);
    if (parent) parent.children!.push(sym);
    else out.push(sym);
  }
  for (const task of link.tasks) {
    out.push({
      name: task.label,
      detail: task.templateId
        ? `task → ${task.env}/${task.templateId}`
        : task.kind === 'harbor'
          ? 'Harbor task'
          : 'task',
      kind: SymbolKind.Event,
      range: task.range,
      selectionRange: task.range,
    });
  }
  return out;
}

export function workspaceSymbols(ws: Workspace, query: string, limit = 500): SymbolInformation[] {
  const q = query.toLowerCase();
  const matches = (name: string) => {
    if (!q) return true;
    const n = name.toLowerCase();
    let i = 0;
    for (const c of n) if (c === q[i]) i++;
    return i === q.length;
  };
  const out: SymbolInformation[] = [];
  for (const p of ws.paths()) {
    const link = ws.link(p);
    if (!link) continue;
    for (const t of link.templates) {
      if (matches(t.id) || matches(t.functionName))
        out.push({
          name: t.id,
          kind: SymbolKind.Function,
          containerName: t.env,
          location: { uri: t.uri, range: t.range },
        });
    }
    for (const task of link.tasks) {
      if (matches(task.label))
        out.push({
          name: task.label,
          kind: SymbolKind.Event,
          containerName: task.ref,
          location: { uri: task.uri, range: task.range },
        });
    }
    if (out.length >= limit) break;
  }
  return out.slice(0, limit);
}
