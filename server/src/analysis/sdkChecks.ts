/**
 * What the HUD SDK v6 itself rejects when it imports an env file, found
 * statically (docs/sdk-compatibility.md): `@env.template` without its
 * parentheses, names imported from `hud` that the SDK does not export, and a
 * `combine(...)` whose weights cannot be normalised (no positive weight).
 * Syntax errors are importability.ts's. The text is only scanned when it
 * mentions what is checked.
 */
import { BoundedCache } from './boundedCache';
import { problem } from './diagnostics';
import type { FileProblem } from './facts';
import { ownString } from './intern';
import type { LineMap } from './lines';
import { closestName } from './names';
import { SDK_EXPORTS, SDK_INCIDENTAL } from './sdkSurface';

export function sdkProblems(text: string, lines: LineMap, envVariables: ReadonlySet<string>): FileProblem[] {
  const out: FileProblem[] = [];
  if (text.includes('hud')) importProblems(text, lines, out);
  if (envVariables.size && text.includes('.template')) bareTemplateProblems(text, lines, envVariables, out);
  if (text.includes('combine(')) weightProblems(text, lines, out);
  return out;
}

/**
 * Where the line holding `at` starts, if only spaces and tabs stand before
 * `at` on it; else -1. Lines end where `^` in a multiline pattern says.
 */
function indentStart(text: string, at: number): number {
  let i = at;
  for (let c = text.charCodeAt(i - 1); c === 32 || c === 9; c = text.charCodeAt(--i - 1));
  const before = text.charCodeAt(i - 1);
  return i === 0 || before === 10 || before === 13 || before === 0x2028 || before === 0x2029 ? i : -1;
}

/**
 * The matches of the sticky multiline `re` at the starts of the lines on
 * which `word` is the first thing after the indentation: a file's few
 * candidate lines, found by indexOf, instead of a pattern tried at every
 * line of every file.
 */
export function* linesStartingWith(text: string, word: string, re: RegExp): Generator<RegExpExecArray> {
  for (let at = text.indexOf(word); at >= 0;) {
    const lineStart = indentStart(text, at);
    let next = at + word.length;
    if (lineStart >= 0) {
      re.lastIndex = lineStart;
      const m = re.exec(text);
      if (m) {
        yield m;
        next = Math.max(next, lineStart + m[0].length);
      }
    }
    at = text.indexOf(word, next);
  }
}

const IMPORT = /[ \t]*from[ \t]+(hud(?:\.[A-Za-z_]\w*)*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*(?:\\\n[^\n#]*)*)/my;

/**
 * Import lines found to name only what the SDK exports. The same line
 * (`from hud import Environment`) heads file after file, and its names
 * were read again in each.
 */
const cleanImports = new BoundedCache<string, true>(1000);

function importProblems(text: string, lines: LineMap, out: FileProblem[]): void {
  for (const m of linesStartingWith(text, 'from', IMPORT)) {
    const exported = SDK_EXPORTS[m[1]!];
    if (!exported || cleanImports.get(m[0]) !== undefined) continue;
    const found = out.length;
    const listStart = m.index + m[0].length - m[2]!.length;
    for (const name of m[2]!.matchAll(/[A-Za-z_]\w*/g)) {
      const before = m[2]!.slice(0, name.index);
      if (
        /\bas\s*$/.test(before) ||
        name[0] === 'as' ||
        exported.includes(name[0]) ||
        SDK_INCIDENTAL[m[1]!]?.includes(name[0]) ||
        /#[^\n]*$/.test(before)
      )
        continue;
      const at = listStart + name.index;
      const closest = closestName(name[0], exported);
      out.push(
        problem(
          'hud-unknown-import',
          lines.rangeAt(at, at + name[0].length),
          `${m[1]} has no "${name[0]}" in the HUD SDK v6, so importing this module fails with ImportError (fix: ${closest ? `did you mean "${closest}"?` : `import one of ${m[1]}'s names`})`,
        ),
      );
    }
    if (out.length === found) cleanImports.add(ownString(m[0]), true);
  }
}

const BARE_TEMPLATE = /[ \t]*@([A-Za-z_]\w*)\.template[ \t]*(?:#[^\n]*)?$/my;

function bareTemplateProblems(
  text: string,
  lines: LineMap,
  envVariables: ReadonlySet<string>,
  out: FileProblem[],
): void {
  for (const m of linesStartingWith(text, '@', BARE_TEMPLATE)) {
    if (!envVariables.has(m[1]!)) continue;
    const at = m.index + m[0].indexOf('@');
    out.push(
      problem(
        'template-bare-decorator',
        lines.rangeAt(at, at + m[1]!.length + '@.template'.length),
        `@${m[1]}.template needs parentheses: the SDK's template() takes keywords only, so the bare decorator raises TypeError at import (fix: write @${m[1]}.template())`,
      ),
    );
  }
}

/** How far one call's arguments are read, and how much text a file's calls are read for in all. */
const CALL_SCAN_LIMIT = 20_000;
const FILE_SCAN_BUDGET = 4_000_000;

/**
 * `combine(...)` calls whose every weight is a literal and none is positive:
 * the SDK raises ValueError. Each call is read on its own, so without a
 * budget for the file a module of 200,000 unclosed `combine(` took 20 s
 * (each read to its limit); real modules read a few hundred characters per
 * call and never come near it.
 */
function weightProblems(text: string, lines: LineMap, out: FileProblem[]): void {
  let budget = FILE_SCAN_BUDGET;
  for (const m of text.matchAll(/\bcombine\(/g)) {
    const open = m.index + m[0].length - 1;
    const { args, read } = topLevelArgs(text, open, Math.min(CALL_SCAN_LIMIT, budget));
    budget -= read;
    if (budget <= 0) return;
    if (!args || args.length === 0) continue;
    const weights = args.map(literalWeight);
    if (weights.some((w) => w === undefined) || weights.some((w) => w! > 0)) continue;
    out.push(
      problem(
        'combine-no-positive-weight',
        lines.rangeAt(m.index, m.index + 'combine'.length),
        `no part of this combine() has a positive weight (${weights.join(', ')}), so the weights cannot be normalised and grading fails with ValueError (fix: give at least one SubScore or grader a weight > 0)`,
      ),
    );
  }
}

/** The literal weight of one combine() argument: `SubScore(..., weight=W)` (default 1) or `X.grade(W, ...)`. */
function literalWeight(arg: string): number | undefined {
  const a = arg.trim().replace(/^await\s+/, '');
  const call = /^([\w.]+)\(([\s\S]*)\)$/.exec(a);
  if (!call) return undefined;
  const inner = topLevelArgs(`(${call[2]!})`, 0, CALL_SCAN_LIMIT).args ?? [];
  const kw = inner.map((p) => /^\s*weight\s*=\s*([-+]?\d+(?:\.\d*)?|[-+]?\.\d+)\s*$/.exec(p)).find(Boolean);
  if (kw) return Number(kw[1]);
  if (inner.some((p) => /^\s*weight\s*=/.test(p))) return undefined;
  if (/(^|\.)SubScore$/.test(call[1]!)) return 1;
  if (/\.grade$/.test(call[1]!)) {
    const first = inner[0]?.trim() ?? '';
    return /^[-+]?(\d+(\.\d*)?|\.\d+)$/.test(first) ? Number(first) : undefined;
  }
  return undefined;
}

/**
 * The top-level comma-separated arguments of the call whose `(` is at
 * `open` (undefined when it does not close within `limit` characters), and
 * how many characters were read.
 */
function topLevelArgs(text: string, open: number, limit: number): { args: string[] | undefined; read: number } {
  const out: string[] = [];
  let depth = 0;
  let start = open + 1;
  let quote = '';
  const end = Math.min(text.length, open + limit);
  let i = open;
  for (; i < end; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) {
        const last = text.slice(start, i);
        if (last.trim()) out.push(last);
        return { args: out, read: i + 1 - open };
      }
    } else if (c === ',' && depth === 1) {
      out.push(text.slice(start, i));
      start = i + 1;
    } else if (c === '#') {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl - 1;
    }
  }
  return { args: undefined, read: i - open };
}
