/**
 * Open documents: incremental edits that fix and break links, equivalence
 * of the incremental parse with a fresh one, UTF-16 positions, syntax
 * errors, undecodable bytes and huge files.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';
import type { Position } from '../../../common/lspMessages';
import { py, workspace } from './helpers';

const ENV = py`
  from hud import Environment

  actor = Environment("workspace")

  @actor.template(id="solve")
  async def solve(level: int = 1):
      answer = yield "Write the secret."
      yield {"score": 0.0, "answer": answer}

  @actor.template(id="verify")
  async def verify(expected: str = "s"):
      result = yield ""
      yield 1.0 if result["answer"] == expected else 0.0

  task = solve(level=2)
  task.verifier = verify()
`;

function positionOf(text: string, needle: string, offset = 0): Position {
  const at = text.indexOf(needle) + offset;
  assert.ok(at >= offset, `${needle} not found`);
  const before = text.slice(0, at);
  const line = before.split('\n').length - 1;
  return { line, character: at - (before.lastIndexOf('\n') + 1) };
}

function replace(text: string, needle: string, by: string): TextDocumentContentChangeEvent {
  const start = positionOf(text, needle);
  const end = positionOf(text, needle, needle.length);
  return { range: { start, end }, text: by };
}

describe('incremental edits of open documents', () => {
  test('edits break and fix a task argument and a verifier link', async () => {
    const ws = await workspace({});
    const path = ws.path('env.py');
    ws.analyzer.openDocument(path, ENV, 1);
    assert.deepEqual(ws.codes('env.py'), []);
    let text = ENV;
    const edit = (needle: string, by: string, version: number) => {
      const change = replace(text, needle, by);
      text = text.replace(needle, by);
      return ws.analyzer.changeDocument(path, [change], version);
    };
    const affected = edit('solve(level=2)', 'solve(levle=2)', 2);
    assert.ok(affected.has(path));
    assert.deepEqual(ws.codes('env.py'), ['task-bad-args']);
    edit('solve(levle=2)', 'solve(level=2)', 3);
    assert.deepEqual(ws.codes('env.py'), []);
    edit('task.verifier = verify()', 'task.verifier = verifx()', 4);
    assert.deepEqual(ws.codes('env.py'), ['verifier-unknown-template']);
    edit('verifx()', 'verify()', 5);
    assert.deepEqual(ws.codes('env.py'), []);
    assert.equal(ws.analyzer.documentText(path), text);
  });

  test('the incremental parse gives the same index as a fresh parse, through emoji and multi-line edits', async () => {
    const inc = await workspace({});
    const path = inc.path('env.py');
    let text = ENV;
    inc.analyzer.openDocument(path, text, 1);
    const edits: [string, string][] = [
      ['"Write the secret."', '"Écris le secret 😀 ici."'],
      ['task = solve(level=2)', '# 😀 emoji above\nlabel = "ü😀"; task = solve(level=3, bogus=1)'],
      ['async def verify', 'async def verify_more'],
      ['verify()', 'verify_more()'],
      ['level: int = 1', 'level: int'],
      ['\n  ', '\n'],
      ['"ü😀"', '"plain"'],
    ];
    let version = 1;
    for (const [needle, by] of edits) {
      if (!text.includes(needle)) continue;
      const change = replace(text, needle, by);
      text = text.replace(needle, by);
      inc.analyzer.changeDocument(path, [change], ++version);
      const fresh = await workspace({ 'env.py': text });
      const a = inc.analyzer.workspace.index();
      const b = fresh.analyzer.workspace.index();
      assert.deepEqual({ ...a, version: 0 }, { ...b, version: 0 }, `after replacing ${needle}`);
      assert.deepEqual(inc.problems('env.py'), fresh.problems('env.py'), `problems after replacing ${needle}`);
    }
    assert.equal(inc.analyzer.documentText(path), text);
  });

  test('several changes in one notification are applied in order', async () => {
    const ws = await workspace({});
    const path = ws.path('env.py');
    ws.analyzer.openDocument(path, ENV, 1);
    const first = replace(ENV, 'level=2', 'level=2, a=1');
    const afterFirst = ENV.replace('level=2', 'level=2, a=1');
    const second = replace(afterFirst, 'verify()', 'verify(b=2)');
    ws.analyzer.changeDocument(path, [first, second], 2);
    assert.deepEqual(ws.codes('env.py'), ['task-bad-args', 'task-bad-args']);
    ws.analyzer.changeDocument(path, [{ text: ENV }], 3);
    assert.deepEqual(ws.codes('env.py'), [], 'a full-text change replaces everything');
  });

  test('positions are UTF-16 columns, also after emoji and accented text on the same line', async () => {
    const text = ENV.replace('task = solve(level=2)', 'note = "é😀ü"; task = solve(bogus=2)');
    const ws = await workspace({ 'env.py': text });
    const bogus = ws.problems('env.py').find((p) => p.code === 'task-bad-args')!;
    assert.deepEqual(bogus.range.start, positionOf(text, 'bogus'));
    const task = ws.analyzer.workspace.index().tasks[0]!;
    assert.deepEqual(task.range.start, positionOf(text, 'task = solve'));

    // The same through the incremental path: an emoji typed before the task on its line.
    const inc = await workspace({});
    const path = inc.path('env.py');
    inc.analyzer.openDocument(path, ENV.replace('task = solve(level=2)', 'task = solve(bogus=2)'), 1);
    const line = positionOf(ENV, 'task = solve').line;
    inc.analyzer.changeDocument(
      path,
      [{ range: { start: { line, character: 0 }, end: { line, character: 0 } }, text: 'x = "😀😀"; ' }],
      2,
    );
    const moved = inc.problems('env.py').find((p) => p.code === 'task-bad-args')!;
    assert.deepEqual(moved.range.start, { line, character: 'x = "😀😀"; task = solve('.length });
  });

  test('a syntax error does not stop the rest of the file from being indexed', async () => {
    const broken = ENV.replace(
      'task = solve(level=2)',
      'def broken(:\n    pass\n\nx = [1, 2\n\ntask = solve(level=2, bogus=1)',
    );
    const ws = await workspace({ 'env.py': broken });
    const index = ws.analyzer.workspace.index();
    assert.deepEqual(
      index.templates.map((t) => t.id),
      ['solve', 'verify'],
    );
    assert.ok(
      index.tasks.some((t) => t.ref === 'env.py::task'),
      JSON.stringify(index.tasks.map((t) => t.ref)),
    );
    const after = py`
      from hud import Environment
      env = Environment("e")
      oops = (
      @env.template(id="late")
      async def late():
          yield "prompt"
          yield 1.0
      later = late()
    `;
    const ws2 = await workspace({ 'late.py': after });
    assert.deepEqual(
      ws2.analyzer.workspace.index().templates.map((t) => t.id),
      ['late'],
    );
    assert.deepEqual(
      ws2.analyzer.workspace.index().tasks.map((t) => t.ref),
      ['late.py::later'],
    );
  });

  test('undecodable bytes are replaced, not fatal', async () => {
    const bytes = Buffer.concat([Buffer.from('# caf'), Buffer.from([0xe9, 0xff, 0xfe]), Buffer.from(`\n${ENV}`)]);
    const ws = await workspace({ 'env.py': bytes });
    assert.deepEqual(
      ws.analyzer.workspace.index().tasks.map((t) => t.ref),
      ['env.py::task'],
    );
    assert.deepEqual(ws.codes('env.py'), []);
    const garbage = await workspace({ 'bin.py': Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 151) % 256)) });
    assert.deepEqual(garbage.analyzer.workspace.index().tasks, []);
  });

  test('a file over the size limit is skipped with one info diagnostic', async () => {
    const huge = `${ENV}\n${'# padding line to make the file very large\n'.repeat(60_000)}`;
    assert.ok(Buffer.byteLength(huge) > 2 * 1024 * 1024);
    const ws = await workspace({ 'big.py': huge });
    assert.deepEqual(
      ws.problems('big.py').map((p) => [p.code, p.severity]),
      [['file-too-large', 'info']],
    );
    assert.deepEqual(ws.analyzer.workspace.index().tasks, []);
    const open = await workspace({});
    open.analyzer.openDocument(open.path('big.py'), huge, 1);
    assert.deepEqual(open.codes('big.py'), ['file-too-large']);
  });

  test('closing a document falls back to the file on disk, or drops it', async () => {
    const ws = await workspace({ 'env.py': ENV });
    const path = ws.path('env.py');
    ws.analyzer.openDocument(path, ENV.replace('level=2', 'bogus=2'), 1);
    assert.deepEqual(ws.codes('env.py'), ['task-bad-args']);
    ws.analyzer.closeDocument(path, ENV);
    assert.deepEqual(ws.codes('env.py'), []);
    assert.equal(ws.analyzer.isOpen(path), false);
    ws.analyzer.openDocument(path, ENV, 2);
    ws.analyzer.closeDocument(path, undefined);
    assert.equal(ws.analyzer.workspace.has(path), false);
  });
});
