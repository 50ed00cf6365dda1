/**
 * Loads web-tree-sitter and the Python grammar once per process. The bundled
 * server finds both .wasm files beside dist/server.js; under tsx (tests, CLI
 * from source) they are found in node_modules instead.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Language, Parser } from 'web-tree-sitter';

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
