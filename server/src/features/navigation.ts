/** Go to definition and find references between tasks, verifiers and templates. */
import type { Location } from 'vscode-languageserver';
import type { Position } from '../../../common/lspMessages';
import type { Workspace } from '../analysis/workspace';
import { findTemplate, hitAt } from './lookup';

export function definition(ws: Workspace, path: string, pos: Position): Location[] {
  const hit = hitAt(ws, path, pos);
  if (!hit) return [];
  if (hit.kind === 'use') {
    const t = hit.template;
    return t ? [{ uri: t.uri, range: t.range }] : [];
  }
  if (hit.kind === 'task') {
    const { env, templateId, templateUri } = hit.task;
    if (!env || !templateId || !templateUri) return [];
    for (const p of ws.paths()) {
      if (ws.uriOf(p) !== templateUri) continue;
      const t = findTemplate(ws, p, env, templateId);
      if (t) return [{ uri: t.uri, range: t.range }];
    }
  }
  return [];
}

export function references(ws: Workspace, path: string, pos: Position, includeDeclaration: boolean): Location[] {
  const hit = hitAt(ws, path, pos);
  let target: { path: string; env: string; id: string } | undefined;
  if (hit?.kind === 'use') target = { path: hit.use.templatePath, env: hit.use.env, id: hit.use.templateId };
  else if (hit?.kind === 'template') target = { path, env: hit.template.env, id: hit.template.id };
  if (!target) return [];
  const out: Location[] = [];
  if (includeDeclaration) {
    const t = findTemplate(ws, target.path, target.env, target.id);
    if (t) out.push({ uri: t.uri, range: t.range });
  }
  for (const p of ws.paths()) {
    const link = ws.link(p);
    if (!link) continue;
    for (const u of link.uses) {
      if (u.templatePath === target.path && u.env === target.env && u.templateId === target.id)
        out.push({ uri: ws.uriOf(p), range: u.range });
    }
  }
  return out;
}
