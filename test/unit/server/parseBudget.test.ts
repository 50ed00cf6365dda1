/**
 * A file the parser is slow on cannot hold up the language server: its
 * parse is given up when it runs out of its budget, the file is left out of
 * the index with a warning that says where and why, and everything else is
 * indexed as usual (docs/reliability.md). tree-sitter-python slows down with
 * every backslash-continued line in a run: 8,000 of them take seconds, and
 * 100,000 minutes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DidSaveTextDocumentNotification } from 'vscode-languageserver-protocol';
import { pathToUri } from '../../../server/src/analysis/paths';
import { DEFAULT_PARSE_BUDGET, parseWithin, createPythonParser } from '../../../server/src/analysis/treeSitter';
import { SOLVE_ENV, workspace } from './helpers';
import { startServer, type LspClient } from './lspClient';

const ENV = `${SOLVE_ENV}task = solve(level=1)\n`;

/** A module whose assignment runs over `lines` backslash-continued lines, starting on line 2. */
const continued = (lines: number) => `import os\nx = 1 ${'\\\n'.repeat(lines)}+ 2\n`;
/** The same value written as one parenthesized expression: ordinary to parse. */
const FIXED = 'import os\nx = (1\n+ 2)\n';

/** Short enough that the slow file always runs out of it, long enough for an ordinary file on a busy machine. */
const SHORT = { baseMs: 100, msPer1000Chars: 0 };

describe('a parse that runs out of its budget (analysis)', () => {
  test('the slow file is left out with a warning, and the rest of its batch is indexed', async () => {
    // The slow file first: the parser must start afresh on the next file after giving one up.
    const ws = await workspace({ 'a_slow.py': continued(8000), 'b_env.py': ENV }, [], { parseBudget: SHORT });
    const [slow, ...others] = ws.problems('a_slow.py');
    assert.equal(others.length, 0);
    assert.equal(slow?.code, 'python-parse-too-slow');
    assert.equal(slow.severity, 'warning');
    assert.match(slow.message, /^a_slow\.py took more than 0\.1 s to parse \(the parser was at line \d+\)/);
    assert.match(slow.message, /backslash-continued lines/);
    assert.ok(slow.range.start.line >= 1 && slow.range.start.line <= 8001, `line ${slow.range.start.line}`);
    assert.deepEqual(
      ws.analyzer.workspace.index().tasks.map((t) => t.ref),
      ['b_env.py::task'],
    );
    assert.deepEqual(ws.codes('b_env.py'), []);
  });

  test('an open document that ran out waits for a save, then is parsed again', async () => {
    const ws = await workspace({}, [], { parseBudget: SHORT });
    const path = ws.path('doc.py');
    ws.analyzer.openDocument(path, continued(8000), 1);
    const [slow] = ws.problems('doc.py');
    assert.equal(slow?.code, 'python-parse-too-slow');
    assert.match(slow.message, /it is parsed again when you save it/);
    // Edits are not parsed (each attempt would cost the budget again) until the document is saved.
    const whole = { start: { line: 0, character: 0 }, end: { line: 8003, character: 0 } };
    assert.deepEqual([...ws.analyzer.changeDocument(path, [{ range: whole, text: ENV }], 2)], []);
    assert.deepEqual(ws.codes('doc.py'), ['python-parse-too-slow']);
    assert.deepEqual([...ws.analyzer.retryDocument(path)], [path]);
    assert.deepEqual(ws.codes('doc.py'), []);
    assert.deepEqual(
      ws.analyzer.workspace.index().tasks.map((t) => t.ref),
      ['doc.py::task'],
    );
    // Parsed again, it is analysed at every edit as before, and a save has nothing to retry.
    ws.analyzer.changeDocument(path, [{ text: ENV.replace('level=1', 'level=1, bogus=2') }], 3);
    assert.deepEqual(ws.codes('doc.py'), ['task-bad-args']);
    assert.deepEqual([...ws.analyzer.retryDocument(path)], []);
  });

  test('the default budget leaves ordinary modules alone and gives up a long run of continuations', async () => {
    const parser = await createPythonParser();
    try {
      const ordinary = `${ENV}${'value = compute(1, 2) + other["key"]  # padding\n'.repeat(40_000)}`;
      assert.ok(ordinary.length > 1_900_000, 'an ordinary module near the 2 MB limit');
      const parsed = parseWithin(parser, ordinary, DEFAULT_PARSE_BUDGET);
      assert.ok(parsed?.tree, 'an ordinary 2 MB module parses within the default budget');
      parsed.tree.delete();
      const slow = parseWithin(parser, continued(100_000), DEFAULT_PARSE_BUDGET);
      assert.equal(slow?.tree, undefined);
      assert.ok(slow!.stalledAt > 0);
      const next = parseWithin(parser, FIXED, DEFAULT_PARSE_BUDGET);
      assert.equal(next?.tree?.rootNode.hasError, false, 'the parser starts afresh after giving up');
      next?.tree?.delete();
    } finally {
      parser.delete();
    }
  });
});

describe('a file the parser is slow on, in the language server (bundled)', () => {
  let dir: string;
  let lsp: LspClient;
  const slowUri = () => pathToUri(join(dir, 'slow.py'));

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hud-slow-parse-'));
    writeFileSync(join(dir, 'env.py'), ENV);
    // Minutes of parsing without the budget; the default budget gives it up after about two seconds.
    writeFileSync(join(dir, 'slow.py'), continued(100_000));
    lsp = await startServer(dir, 'bundled');
  });

  after(async () => {
    await lsp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const slowCodes = () => lsp.diagnostics.get(slowUri())?.diagnostics.map((d) => d.code) ?? [];

  test('the server indexes the workspace and warns about the slow file', async () => {
    await lsp.until('the slow file warning', () => slowCodes().includes('python-parse-too-slow'), 60_000);
    assert.deepEqual(
      (await lsp.index()).tasks.map((t) => t.ref),
      ['env.py::task'],
    );
  });

  test('opened, edited and saved, the slow file is parsed again at the save', async () => {
    const seen = lsp.notifications();
    await lsp.open(slowUri(), continued(100_000), 1);
    await lsp.until('the open document analysed', () => lsp.notifications() > seen, 60_000);
    assert.deepEqual(slowCodes(), ['python-parse-too-slow']);
    await lsp.change(slowUri(), 2, [{ text: ENV }]);
    await lsp.conn.sendNotification(DidSaveTextDocumentNotification.type, { textDocument: { uri: slowUri() } });
    await lsp.until('the saved document indexed', () => slowCodes().length === 0, 60_000);
    await lsp.eventually('the saved document in the index', async () =>
      (await lsp.index()).tasks.some((t) => t.ref === 'slow.py::task'),
    );
  });
});
