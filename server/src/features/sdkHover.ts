/**
 * Hover for the HUD SDK's own names (`exact_match`, `combine`,
 * `BashGrader.grade`, ...): their signature with defaults and docstring, as
 * read from the bundled runtime by scripts/gen-sdk-docs.py. Only names that
 * the file really imports from `hud` are shown, so a local `combine` is left
 * to the Python extension.
 */
import type { Hover } from 'vscode-languageserver';
import type { ImportBinding } from '../analysis/facts';
import { isHudModule } from '../analysis/hudModule';
import docs from './sdkDocs.json';

interface SdkEntry {
  module: string;
  signature: string;
  doc: string;
  methods?: Record<string, { signature: string; doc: string }>;
}

const SDK = docs as Record<string, SdkEntry>;
const WORD = /[A-Za-z_0-9]/;

/** The dotted name ending at the word under `offset` (`graders.exact_match`), and that word's span. */
export function dottedNameAt(
  text: string,
  offset: number,
): { parts: string[]; start: number; end: number } | undefined {
  let start = offset;
  let end = offset;
  while (start > 0 && WORD.test(text[start - 1]!)) start--;
  while (end < text.length && WORD.test(text[end]!)) end++;
  if (start === end || /\d/.test(text[start]!)) return undefined;
  const parts = [text.slice(start, end)];
  let at = start;
  for (;;) {
    let dot = at - 1;
    while (dot >= 0 && (text[dot] === ' ' || text[dot] === '\t')) dot--;
    if (text[dot] !== '.') break;
    let e = dot;
    while (e > 0 && (text[e - 1] === ' ' || text[e - 1] === '\t')) e--;
    let s = e;
    while (s > 0 && WORD.test(text[s - 1]!)) s--;
    if (s === e) break;
    parts.unshift(text.slice(s, e));
    at = s;
  }
  return { parts, start, end };
}

export function sdkEntryFor(
  imports: readonly ImportBinding[],
  parts: readonly string[],
): { title: string; signature: string; doc: string } | undefined {
  const head = parts[0]!;
  const binding = imports.find((i) => i.local === head);
  if (!binding || !isHudModule(binding.module)) return undefined;
  const last = parts[parts.length - 1]!;
  // `from hud.graders import exact_match` binds a name; `import hud.graders as g` / `from hud import graders` a module.
  const headEntry = binding.name !== undefined ? SDK[binding.name] : undefined;
  if (parts.length === 1) return headEntry ? { title: binding.name!, ...headEntry } : undefined;
  if (headEntry?.methods && parts.length === 2) {
    const m = headEntry.methods[last];
    return m ? { title: `${binding.name}.${last}`, ...m } : undefined;
  }
  const entry = SDK[last];
  return entry ? { title: last, ...entry } : undefined;
}

export function sdkHover(
  imports: readonly ImportBinding[],
  text: string,
  offset: number,
  positionAt: (o: number) => { line: number; character: number },
): Hover | null {
  const at = dottedNameAt(text, offset);
  if (!at) return null;
  const entry = sdkEntryFor(imports, at.parts);
  if (!entry) return null;
  const lines = ['```python', entry.signature, '```', `HUD SDK · \`${entry.title}\``];
  if (entry.doc) lines.push('', entry.doc);
  return {
    contents: { kind: 'markdown', value: lines.join('\n') },
    range: { start: positionAt(at.start), end: positionAt(at.end) },
  };
}
