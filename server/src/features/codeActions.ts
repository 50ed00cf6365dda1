/**
 * Quick fixes: every diagnostic whose message says "(fix: ...)" and whose fix
 * is mechanical gets a code action that does it. What the edit needs beyond
 * the document's text travels in the diagnostic's `data` (FixData), so no
 * second analysis runs when the light bulb opens.
 */
import {
  CodeActionKind,
  type CodeAction,
  type Diagnostic,
  type TextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { DIAGNOSTIC_SOURCE } from '../analysis/diagnostics';
import type { FixData } from '../analysis/facts';

const MAX_RENAMES = 3;

/** `uri` is the client's spelling of the document (the analyzer's documents are keyed by path). */
export function codeActions(uri: string, doc: TextDocument, diagnostics: readonly Diagnostic[]): CodeAction[] {
  const out: CodeAction[] = [];
  for (const d of diagnostics) {
    if (d.source !== DIAGNOSTIC_SOURCE) continue;
    for (const action of fixesFor(uri, doc, d))
      out.push({ ...action, kind: CodeActionKind.QuickFix, diagnostics: [d] });
  }
  return out;
}

type Fix = Pick<CodeAction, 'title' | 'edit' | 'isPreferred'>;

function edit(uri: string, edits: TextEdit[]): WorkspaceEdit {
  return { changes: { [uri]: edits } };
}

function fixesFor(uri: string, doc: TextDocument, d: Diagnostic): Fix[] {
  const data = d.data as FixData | undefined;
  if (data) {
    switch (data.kind) {
      case 'rename-keyword':
        return data.names.slice(0, MAX_RENAMES).map((name, i) => ({
          title: `Rename the argument to "${name}"`,
          isPreferred: i === 0,
          edit: edit(uri, [{ range: d.range, newText: name }]),
        }));
      case 'add-keyword':
        return [
          {
            title: `Pass ${data.name}=...`,
            isPreferred: true,
            edit: edit(uri, [
              { range: { start: data.at, end: data.at }, newText: `${data.leadingComma ? ', ' : ''}${data.name}=...` },
            ]),
          },
        ];
      case 'replace-literal':
        return data.choices.slice(0, MAX_RENAMES).map((text, i) => ({
          title: `Pass ${text}`,
          isPreferred: i === 0,
          edit: edit(uri, [{ range: d.range, newText: text }]),
        }));
      case 'delete':
        return [{ title: data.title, isPreferred: true, edit: edit(data.uri, [{ range: data.range, newText: '' }]) }];
      case 'replace':
        return [
          {
            title: data.title,
            isPreferred: true,
            edit: edit(data.uri, [{ range: data.range, newText: data.newText }]),
          },
        ];
    }
  }
  switch (d.code) {
    case 'grade-not-awaited':
      return [
        {
          title: 'Add `await`',
          isPreferred: true,
          edit: edit(uri, [{ range: { start: d.range.start, end: d.range.start }, newText: 'await ' }]),
        },
      ];
    case 'template-single-yield':
      return gradingYield(uri, doc, d);
    case 'result-missing-score':
      return missingScore(uri, doc, d);
    case 'v5-scenario-api':
      return scenarioRename(uri, doc, d);
    default:
      return [];
  }
}

/** A second yield after the first one's statement, at its indentation, that the author then fills in. */
function gradingYield(uri: string, doc: TextDocument, d: Diagnostic): Fix[] {
  const startLine = doc.getText({
    start: { line: d.range.start.line, character: 0 },
    end: { line: d.range.start.line + 1, character: 0 },
  });
  const indent = /^[ \t]*/.exec(startLine)![0];
  const endLine = d.range.end.line;
  const endText = doc
    .getText({ start: { line: endLine, character: 0 }, end: { line: endLine + 1, character: 0 } })
    .replace(/\r?\n$/, '');
  const at = { line: endLine, character: endText.length };
  return [
    {
      title: 'Add the grading yield',
      isPreferred: true,
      edit: edit(uri, [
        { range: { start: at, end: at }, newText: `\n${indent}yield 0.0  # the reward: grade the answer here` },
      ]),
    },
  ];
}

/** `"score": 0.0` as the result dict's first entry. */
function missingScore(uri: string, doc: TextDocument, d: Diagnostic): Fix[] {
  // The range is the whole `yield {...}`.
  const text = doc.getText(d.range);
  const open = text.indexOf('{');
  if (open < 0) return [];
  if (/["']score["']\s*:/.test(text)) return []; // present but not a number: only the author knows the value
  const at = doc.positionAt(doc.offsetAt(d.range.start) + open + 1);
  const empty = /^\{\s*\}$/.test(text.slice(open).trim());
  return [
    {
      title: 'Add "score" to the result',
      isPreferred: true,
      edit: edit(uri, [{ range: { start: at, end: at }, newText: empty ? '"score": 0.0' : '"score": 0.0, ' }]),
    },
  ];
}

/** `@env.scenario` -> `@env.template` (the body still needs the v6 shape; the message says how). */
function scenarioRename(uri: string, doc: TextDocument, d: Diagnostic): Fix[] {
  const text = doc.getText(d.range);
  const m = /\.\s*scenario\b/.exec(text);
  if (!m) return [];
  const start = doc.positionAt(doc.offsetAt(d.range.start) + m.index);
  const end = doc.positionAt(doc.offsetAt(d.range.start) + m.index + m[0].length);
  return [
    {
      title: 'Rename to @….template',
      isPreferred: true,
      edit: edit(uri, [{ range: { start, end }, newText: '.template' }]),
    },
  ];
}
