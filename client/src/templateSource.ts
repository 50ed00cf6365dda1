/**
 * Is a stored rollout stale? A trace keeps the source of the template (and
 * verifier) it ran, as Python's `inspect.getsource` returned it: decorators,
 * the `def` and its indented body. This finds the same block in the file as
 * it is now and compares the two, and builds the "before" side of a template
 * diff (docs/grader-workbench.md, "Stale runs"). No VS Code here.
 */

export interface SourceBlock {
  /** 0-based first line (the first decorator, else the `def`). */
  start: number;
  /** 0-based line after the last line of the body. */
  end: number;
  text: string;
}

const DEF = /^\s*(async\s+)?def\s/;
const DECORATOR = /^\s*@/;

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/**
 * The function block around `defLine` (a decorator or the `def` line): what
 * `inspect.getsource` would return for it. Triple-quoted strings may reach
 * column 0 without ending the block; a trailing comment line belongs to it
 * when it is indented at least as far as the body, as in `inspect`.
 */
export function templateBlock(text: string, defLine: number): SourceBlock | undefined {
  const lines = text.split(/\r?\n/);
  let def = defLine;
  while (def < lines.length && DECORATOR.test(lines[def] ?? '')) def++;
  if (!DEF.test(lines[def] ?? '')) return undefined;
  const base = indentOf(lines[def]!);
  let start = def;
  for (let above = decoratorAbove(lines, start, base); above !== undefined; above = decoratorAbove(lines, start, base))
    start = above;
  let open: string | undefined;
  let depth = 0;
  let headerDone = false;
  let last = def;
  let bodyCol: number | undefined;
  for (let i = def; i < lines.length; i++) {
    const line = lines[i]!;
    const code = line.trim();
    const startsInString = open !== undefined;
    if (!startsInString && headerDone && depth === 0 && code !== '' && !code.startsWith('#') && indentOf(line) <= base)
      break;
    const comment = !startsInString && code.startsWith('#');
    if (headerDone && bodyCol === undefined && code !== '' && !comment) bodyCol = indentOf(line);
    ({ open, depth } = scanLine(line, open, depth));
    // Python keeps a comment in the block when it is indented at least as far as the body.
    if (startsInString || (code !== '' && !comment) || (comment && bodyCol !== undefined && indentOf(line) >= bodyCol))
      last = i;
    if (!headerDone && open === undefined && depth === 0 && /:\s*(#.*)?$/.test(line)) headerDone = true;
  }
  const end = last + 1;
  return { start, end, text: lines.slice(start, end).join('\n') };
}

/**
 * The first line of a decorator ending just above `line`: a `@` line at the
 * `def`'s indentation whose brackets stay open until the line above `line`
 * (a decorator may span lines, e.g. `@env.template(\n    id="x",\n)`).
 */
function decoratorAbove(lines: string[], line: number, base: number): number | undefined {
  for (let c = line - 1; c >= 0 && c >= line - 50; c--) {
    const text = lines[c]!;
    if (!DECORATOR.test(text) || indentOf(text) !== base) continue;
    let state: { open: string | undefined; depth: number } = { open: undefined, depth: 0 };
    let closedEarly = false;
    for (let i = c; i < line; i++) {
      state = scanLine(lines[i]!, state.open, state.depth);
      const balanced = state.depth === 0 && state.open === undefined;
      if (balanced && i < line - 1) closedEarly = true;
    }
    if (!closedEarly && state.depth === 0 && state.open === undefined) return c;
    return undefined;
  }
  return undefined;
}

/** Follows strings, comments and brackets through one line; `open` is the triple quote still open. */
function scanLine(line: string, open: string | undefined, depth: number): { open: string | undefined; depth: number } {
  let i = 0;
  while (i < line.length) {
    if (open) {
      const close = line.indexOf(open, i);
      if (close < 0) return { open, depth };
      i = close + 3;
      open = undefined;
      continue;
    }
    const c = line[i]!;
    if (c === '#') break;
    if (c === '"' || c === "'") {
      const triple = line.startsWith(c.repeat(3), i) ? c.repeat(3) : undefined;
      if (triple) {
        open = triple;
        i += 3;
        continue;
      }
      i++;
      while (i < line.length && line[i] !== c) i += line[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') depth++;
    if (c === ')' || c === ']' || c === '}') depth = Math.max(0, depth - 1);
    i++;
  }
  return { open, depth };
}

/** Line endings and trailing white space do not make a template different. */
export function normalizeSource(s: string): string {
  const lines = s.split(/\r?\n/).map((l) => l.trimEnd());
  while (lines.length && lines.at(-1) === '') lines.pop();
  return lines.join('\n');
}

/** True when both sources are known and differ; a trace without a recorded source cannot be judged stale. */
export function sourceChanged(stored: string | undefined, current: string | undefined): boolean {
  if (stored === undefined || stored === '' || current === undefined) return false;
  return normalizeSource(stored) !== normalizeSource(current);
}

/** Which of a rollout's graders changed since it ran. */
export interface Staleness {
  template: boolean;
  verifier: boolean;
}

export function staleness(
  stored: { task: { source?: string | undefined }; verifier: { source?: string | undefined } | null },
  current: { template?: string; verifier?: string },
): Staleness {
  return {
    template: sourceChanged(stored.task.source, current.template),
    verifier: sourceChanged(stored.verifier?.source, current.verifier),
  };
}

export function isStale(s: Staleness): boolean {
  return s.template || s.verifier;
}

/** `template changed`, `verifier changed`, `template and verifier changed`. */
export function staleText(s: Staleness): string {
  if (s.template && s.verifier) return 'template and verifier changed';
  return s.template ? 'template changed' : 'verifier changed';
}

/**
 * The file as it was when the rollout ran, as far as the trace knows: the
 * current text with the template's block replaced by the stored source. A
 * diff of this against the file shows only the template's changes.
 */
export function fileWithStoredBlock(fileText: string, block: SourceBlock, stored: string): string {
  const lines = fileText.split(/\r?\n/);
  const eol = fileText.includes('\r\n') ? '\r\n' : '\n';
  const replaced = [...lines.slice(0, block.start), ...normalizeSource(stored).split('\n'), ...lines.slice(block.end)];
  return replaced.join(eol);
}
