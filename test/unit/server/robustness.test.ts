/**
 * Bad input never throws: every prefix of a real environment file (cut mid
 * string, mid call, mid decorator) and shuffled lines go through the whole
 * analysis, and the index stays consistent with a fresh parse.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { workspace } from './helpers';

const SOURCE =
  readFileSync(join(__dirname, '..', '..', 'fixtures', 'workspaces', 'lsp-basic', 'envs', 'env.py'), 'utf8') +
  '\nsuite = Taskset("s", [solve(target="""a\n(b"""), solve(*xs, **kw)])\nx = {"service_access": True, **{"a": [1, (2,]}}\n';

test('every prefix of an environment file is analysed without throwing', async () => {
  const ws = await workspace({});
  const path = ws.path('env.py');
  for (let end = 0; end <= SOURCE.length; end += 3) {
    ws.analyzer.setFile(path, SOURCE.slice(0, end));
    ws.analyzer.workspace.problems(path);
  }
  ws.analyzer.setFile(path, SOURCE);
  assert.ok(ws.analyzer.workspace.index().tasks.some((t) => t.ref === 'env.py::task'));
});

test('shuffled lines and an open document edited character by character never throw', async () => {
  const lines = SOURCE.split('\n');
  const ws = await workspace({});
  const path = ws.path('env.py');
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 40; i++) {
    const shuffled = [...lines].sort(() => random() - 0.5).join('\n');
    ws.analyzer.setFile(path, shuffled);
    ws.analyzer.workspace.index();
  }
  ws.analyzer.openDocument(path, '', 1);
  let text = '';
  let version = 1;
  for (const ch of SOURCE.slice(0, 600)) {
    const lineNo = text.split('\n').length - 1;
    const col = text.length - text.lastIndexOf('\n') - 1;
    ws.analyzer.changeDocument(
      path,
      [{ range: { start: { line: lineNo, character: col }, end: { line: lineNo, character: col } }, text: ch }],
      ++version,
    );
    text += ch;
  }
  assert.equal(ws.analyzer.documentText(path), SOURCE.slice(0, 600));
  const fresh = await workspace({ 'env.py': text });
  assert.deepEqual(
    { ...ws.analyzer.workspace.index(), version: 0 },
    { ...fresh.analyzer.workspace.index(), version: 0 },
  );
});

test('a decorator left open above another template: the index keeps the one below while the list is typed', async () => {
  // Once, the reading of the open decorator ran on into the next statement's and never ended.
  const head = 'from hud import Environment\nenv = Environment("e")\n\n@env.template(id="a", tags=[';
  const rest = '\nasync def a():\n    yield "x"\n\n@env.template(id="b")\nasync def b():\n    yield "y"\n';
  const ws = await workspace({});
  const path = ws.path('env.py');
  const ids = () =>
    ws.analyzer.workspace
      .index()
      .templates.map((t) => t.id)
      .sort();
  for (const typed of ['', '"', '"x', '"x"', '"x",', '"x", "y"']) {
    ws.analyzer.setFile(path, head + typed + rest);
    assert.ok(ids().includes('b'), typed);
  }
  ws.analyzer.setFile(path, head + '"x", "y"])' + rest);
  assert.deepEqual(ids(), ['a', 'b']);
  // Several decorators, each left open, above a def and above another decorator.
  ws.analyzer.setFile(path, head + '\n@env.template(id="c", tags=(\n@other\nasync def c():\n    yield "z"\n' + rest);
  assert.ok(ids().includes('b'));
});

test('a stray closer in a module-level loop (`f(a,] b)`) is read as nothing, and the rest of the module still is', async () => {
  // Once, reading the loop's body stopped at the closer and started there again, for ever.
  const source = [
    'from hud import Environment',
    'env = Environment("e")',
    '',
    '@env.template(id="solve")',
    'async def solve():',
    '    yield "x"',
    '',
    'for path in paths:',
    '    report(format(path,] exists(path)))',
    '',
    'task = solve()',
    '',
  ].join('\n');
  const ws = await workspace({ 'env.py': source });
  assert.deepEqual(
    ws.analyzer.workspace.index().tasks.map((t) => t.label),
    ['task'],
  );
});

test('a comprehension filter nested thousands deep is not followed, and the rest of the module still is', async () => {
  // The filter's evaluator recursed once per level and ran out of stack at about 5,000 (staticValue.ts).
  const n = 20_000;
  const filters = ['('.repeat(n) + 'x' + ')'.repeat(n), '-'.repeat(n) + 'x', 'x' + ' + 1'.repeat(n) + ' > 0'];
  const source = [
    'from hud import Environment',
    'env = Environment("e")',
    '',
    '@env.template(id="solve")',
    'async def solve(level: int):',
    '    yield "x"',
    '',
    ...filters.map((f, i) => `deep${i} = [solve(level=x) for x in (1, 2) if ${f}]`),
    'shallow = [solve(level=x) for x in (1, 2, 3) if -(-x) > 1]',
    '',
  ].join('\n');
  const ws = await workspace({ 'env.py': source });
  assert.deepEqual(
    ws.analyzer.workspace.index().tasks.map((t) => t.label),
    ['shallow[0]', 'shallow[1]'],
  );
});
