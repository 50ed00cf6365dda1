/**
 * `.json` / `.jsonl` task files: rows of `{env, id, args}` (optionally with a
 * `verifier` row of the same shape). A JSON file is a task file only when
 * some row has string `env` and `id`, so package.json and friends never
 * turn into tasks; in a task file, every other row is reported, as `run`
 * refuses it (docs/reliability.md).
 */
import { problem } from './diagnostics';
import type { FileProblem, JsonTaskFacts, JsonTaskRow, Range } from './facts';
import { LineMap } from './lines';

type Row = { env: string; id: string; args: Record<string, unknown>; verifier?: unknown };

function isRow(v: unknown): v is Row {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  if (typeof r.env !== 'string' || typeof r.id !== 'string') return false;
  return r.args === undefined || (r.args !== null && typeof r.args === 'object' && !Array.isArray(r.args));
}

export function extractJsonTasks(text: string, fileName: string): JsonTaskFacts | undefined {
  const spans = fileName.endsWith('.jsonl') ? jsonlSpans(text) : jsonArraySpans(text);
  if (!spans || spans.length === 0) return undefined;
  const lines = new LineMap(text);
  const rows: JsonTaskRow[] = [];
  const issues: FileProblem[] = [];
  for (const [i, span] of spans.entries()) {
    const range: Range = lines.rangeAt(span.start, span.end);
    let value: unknown;
    try {
      value = JSON.parse(text.slice(span.start, span.end));
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      issues.push(
        problem(
          'task-file-malformed',
          range,
          `row ${i} is not valid JSON (${why}) (fix: make each row one JSON object {"env", "id", "args"})`,
        ),
      );
      continue;
    }
    if (!isRow(value)) {
      issues.push(
        problem(
          'task-file-malformed',
          range,
          `row ${i} is not a task: it needs string "env" and "id" and an object "args" (fix: write the row as {"env": ..., "id": ..., "args": {...}})`,
        ),
      );
      continue;
    }
    const row: JsonTaskRow = { row: i, env: value.env, id: value.id, args: value.args ?? {}, argsRange: range, range };
    const argsAt = text.indexOf('"args"', span.start);
    if (argsAt >= 0 && argsAt < span.end) row.argsRange = lines.rangeAt(argsAt, argsAt + 6);
    if (isRow(value.verifier)) {
      const vAt = text.indexOf('"verifier"', span.start);
      const vRange = vAt >= 0 && vAt < span.end ? lines.rangeAt(vAt, vAt + 10) : range;
      row.verifier = { env: value.verifier.env, id: value.verifier.id, args: value.verifier.args ?? {}, range: vRange };
    }
    rows.push(row);
  }
  if (rows.length === 0) return undefined;
  return issues.length ? { kind: 'json-tasks', rows, issues } : { kind: 'json-tasks', rows };
}

interface Span {
  start: number;
  end: number;
}

function jsonlSpans(text: string): Span[] {
  const out: Span[] = [];
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    const lead = line.length - line.trimStart().length;
    const trimmed = line.trim();
    if (trimmed) out.push({ start: start + lead, end: start + lead + trimmed.length });
    start = end + 1;
  }
  return out;
}

/** Offsets of the elements of a top-level JSON array; undefined when it is not one. */
function jsonArraySpans(text: string): Span[] | undefined {
  let i = 0;
  const skipWs = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  skipWs();
  if (text[i] !== '[') return undefined;
  i++;
  const out: Span[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      if (start < 0) start = i;
      continue;
    }
    if (depth === 0 && (c === ',' || c === ']')) {
      if (start >= 0) {
        let end = i;
        while (end > start && /\s/.test(text[end - 1]!)) end--;
        out.push({ start, end });
      }
      start = -1;
      if (c === ']') return out;
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    if (start < 0 && !/\s/.test(c)) start = i;
  }
  return undefined;
}
