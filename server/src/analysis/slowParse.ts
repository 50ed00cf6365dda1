/**
 * The problem a file gets when its parse ran out of its budget
 * (treeSitter.ts, parseWithin): it is left out of the index, and the
 * message says where the parser was and what usually causes it.
 */
import { basename } from 'node:path';
import { problem } from './diagnostics';
import type { SkippedFacts } from './facts';
import { LineMap } from './lines';

/** Backslash-newlines around the place of the stall that make a run worth naming. */
const CONTINUATION_RUN = 100;
const AROUND = 4000;

function continuationsAround(text: string, at: number): number {
  let count = 0;
  const end = at + AROUND;
  for (let i = text.indexOf('\\', Math.max(0, at - AROUND)); i >= 0 && i < end; i = text.indexOf('\\', i + 1)) {
    const next = text.charCodeAt(i + 1);
    if (next === 10 || (next === 13 && text.charCodeAt(i + 2) === 10)) count++;
  }
  return count;
}

/**
 * `open`: the file is an open document, which is parsed again when it is
 * saved rather than at every keystroke (each attempt costs the budget).
 */
export function slowParseFacts(
  path: string,
  text: string,
  stalledAt: number,
  budgetMs: number,
  open: boolean,
): SkippedFacts {
  const lines = new LineMap(text);
  const lineStart = stalledAt > 0 ? text.lastIndexOf('\n', stalledAt - 1) + 1 : 0;
  const lineEnd = text.indexOf('\n', lineStart);
  const range = lines.rangeAt(lineStart, lineEnd < 0 ? text.length : lineEnd);
  const line = range.start.line;
  const fix =
    continuationsAround(text, stalledAt) >= CONTINUATION_RUN
      ? `write the backslash-continued lines around line ${line + 1} as one expression in parentheses: every continuation in a run slows the parser down`
      : 'split it into smaller modules';
  const when = open ? '; it is parsed again when you save it' : '';
  return {
    kind: 'skipped',
    problems: [
      problem(
        'python-parse-too-slow',
        range,
        `${basename(path)} took more than ${(budgetMs / 1000).toFixed(1)} s to parse (the parser was at line ${line + 1}), so HUD Studio does not index it${when} (fix: ${fix})`,
      ),
    ],
  };
}
