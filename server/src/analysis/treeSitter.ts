/**
 * Loads web-tree-sitter and the Python grammar once per process. The bundled
 * server finds both .wasm files beside dist/server.js; under tsx (tests, CLI
 * from source) they are found in node_modules instead.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Language, Parser, type Tree } from 'web-tree-sitter';

export type { Node as SyntaxNode, Tree, Parser, Edit, Point, Language } from 'web-tree-sitter';

const RUNTIME_WASM = 'tree-sitter.wasm';
const PYTHON_WASM = 'tree-sitter-python.wasm';

let loading: Promise<Language> | undefined;

function locate(name: string): string {
  const fallbacks: Record<string, string> = {
    [RUNTIME_WASM]: 'web-tree-sitter/tree-sitter.wasm',
    [PYTHON_WASM]: 'tree-sitter-python/tree-sitter-python.wasm',
  };
  const beside = join(__dirname, name);
  if (existsSync(beside)) return beside;
  const rel = fallbacks[name];
  if (rel) {
    for (let dir = __dirname; ;) {
      const candidate = join(dir, 'node_modules', rel);
      if (existsSync(candidate)) return candidate;
      const up = join(dir, '..');
      if (up === dir) break;
      dir = up;
    }
  }
  return beside;
}

function loadPython(): Promise<Language> {
  loading ??= (async () => {
    // Parser.init's options are typed by @types/emscripten, which is not installed; this is the one field we set.
    const options: { locateFile: (name: string) => string } = { locateFile: (name) => locate(name) };
    await Parser.init(options);
    return Language.load(locate(PYTHON_WASM));
  })();
  return loading;
}

/** A parser for Python; each caller that parses concurrently needs its own. */
export async function createPythonParser(): Promise<Parser> {
  const language = await loadPython();
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}

/**
 * How long one parse may take before it is given up. tree-sitter is linear
 * on ordinary code but not on every input: tree-sitter-python slows down
 * with each backslash-continued line in a run, so a run of 100,000 takes
 * minutes, and the language server, which parses on its one thread, would
 * answer nothing meanwhile (docs/reliability.md). The budget grows with the
 * text and leaves ordinary files several times the time they need on a
 * loaded machine (a 2 MB module parses in well under a second).
 */
export interface ParseBudget {
  baseMs: number;
  msPer1000Chars: number;
}

export const DEFAULT_PARSE_BUDGET: ParseBudget = { baseMs: 2000, msPer1000Chars: 2 };

export function budgetMs(budget: ParseBudget, text: string): number {
  return budget.baseMs + (text.length / 1000) * budget.msPer1000Chars;
}

/** A parse within its budget: the tree, or where the parser was when the budget ran out. */
export type BudgetedParse = { tree: Tree; stalledAt?: undefined } | { tree?: undefined; stalledAt: number };

/**
 * Parses `text` unless that takes longer than `budget`. tree-sitter asks the
 * progress callback every hundred parser steps (about ten times in an
 * ordinary file); the clock is read at every sixteenth call only, since a
 * read at each one cost about 1% of the parse (bench/index/README.md), and
 * 1,600 steps take well under a millisecond against a budget of seconds.
 */
export function parseWithin(
  parser: Parser,
  text: string,
  budget: ParseBudget,
  oldTree?: Tree,
): BudgetedParse | undefined {
  const deadline = performance.now() + budgetMs(budget, text);
  let stalledAt = -1;
  let calls = 0;
  const tree = parser.parse(text, oldTree ?? null, {
    progressCallback: (state) => {
      if ((++calls & 15) !== 0 || performance.now() <= deadline) return false;
      stalledAt = state.currentOffset;
      return true;
    },
  });
  if (tree) return { tree };
  if (stalledAt < 0) return undefined; // no language set: nothing was parsed
  // A cancelled parse is otherwise resumed by the parser's next call, whatever text that call brings.
  parser.reset();
  // Offsets are in bytes of the UTF-16 text web-tree-sitter parses.
  return { stalledAt: Math.min(text.length, Math.max(0, Math.floor(stalledAt / 2))) };
}
