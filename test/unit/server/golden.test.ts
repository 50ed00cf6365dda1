/**
 * Golden answer files over real stdio against the bundled server
 * (docs/grader-workbench.md): a row whose task does not resolve is reported
 * on its line, with the closest task as a quick fix; a line that is not
 * JSON or lacks a field is reported too; the rows reach the index with the
 * task they bind to, and follow the env.py when a task is renamed.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CodeActionRequest, type CodeAction, type Diagnostic } from 'vscode-languageserver-protocol';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { pathToUri } from '../../../server/src/analysis/paths';
import { startServer, type LspClient } from './lspClient';

const ENV = `from hud import Environment

env = Environment("golden")


@env.template(id="count")
async def count(word: str = "apple"):
    answer = yield f"Write {word} three times."
    yield 1.0 if str(answer).count(word) >= 3 else 0.0


counting = count()
suite = [count(word="pear"), count(word="plum")]
`;

const GOLDEN = [
  '{"task": "counting", "answer": "apple apple apple", "expect": 1}',
  '{"task": "countng", "answer": "apple", "expect": 0}',
  '{"task": "suite[1]", "answer": "plum plum plum", "expect": ">= 0.5"}',
  '{"task": "no_such_thing_at_all", "answer": "", "expect": 0}',
  '',
  '// a comment line is not a row',
  '{"task": "counting", "answer": "x", "expect": 1',
  '{"task": "counting", "answer": "x"}',
].join('\n');

describe('golden answer files over stdio (bundled server)', () => {
  let dir: string;
  let lsp: LspClient;
  const goldenUri = () => pathToUri(join(dir, 'envs', 'env.golden.jsonl'));
  const envUri = () => pathToUri(join(dir, 'envs', 'env.py'));
  const diagnostics = (): Diagnostic[] => lsp.diagnostics.get(goldenUri())?.diagnostics ?? [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hud-golden-'));
    mkdirSync(join(dir, 'envs'));
    writeFileSync(join(dir, 'envs', 'env.py'), ENV);
    writeFileSync(join(dir, 'envs', 'env.golden.jsonl'), GOLDEN);
    lsp = await startServer(dir);
  });

  after(async () => {
    await lsp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('unresolved task references and unreadable rows are reported on their lines', async () => {
    await lsp.until('diagnostics of the golden file', () => diagnostics().length >= 4);
    const got = diagnostics()
      .map((d) => [d.range.start.line, String(d.code)] as const)
      .sort((a, b) => a[0] - b[0]);
    assert.deepEqual(got, [
      [1, 'golden-task-unresolved'],
      [3, 'golden-task-unresolved'],
      [6, 'golden-row-malformed'],
      [7, 'golden-row-malformed'],
    ]);
    const byLine = new Map(diagnostics().map((d) => [d.range.start.line, d]));
    const typo = byLine.get(1)!;
    assert.match(typo.message, /envs\/env\.py has no task "countng" \(fix: did you mean "counting"\?/);
    assert.deepEqual(typo.range, {
      start: { line: 1, character: 9 },
      end: { line: 1, character: 18 },
    });
    assert.equal(typo.severity, 1);
    const unknown = byLine.get(3)!;
    assert.doesNotMatch(unknown.message, /did you mean/);
    assert.match(unknown.message, /use one of its tasks: .*counting/);
    assert.match(byLine.get(6)!.message, /not JSON/);
    assert.match(byLine.get(7)!.message, /expect/);
  });

  test('the index carries every readable row and the task it binds to', async () => {
    const rows = (await lsp.index()).golden ?? [];
    assert.deepEqual(
      rows.map((r) => [r.range.start.line, r.task, r.taskRef ?? null, r.expect]),
      [
        [0, 'counting', 'envs/env.py::counting', '== 1'],
        [1, 'countng', null, '== 0'],
        [2, 'suite[1]', 'envs/env.py::suite[1]', '>= 0.5'],
        [3, 'no_such_thing_at_all', null, '== 0'],
      ],
    );
    assert.equal(rows[0]!.answer, '"apple apple apple"');
  });

  test('the quick fix writes the closest task name, and the diagnostic goes', async () => {
    const uri = goldenUri();
    // Code actions come for open documents, as in the editor when the light bulb shows.
    await lsp.open(uri, GOLDEN, 1);
    const typo = diagnostics().find((d) => d.range.start.line === 1)!;
    const actions = (await lsp.conn.sendRequest(CodeActionRequest.type, {
      textDocument: { uri },
      range: typo.range,
      context: { diagnostics: [typo] },
    })) as CodeAction[] | null;
    const fix = (actions ?? []).find((a) => a.isPreferred);
    assert.equal(fix?.title, 'Use task "counting"');
    const doc = TextDocument.create(uri, 'jsonl', 1, GOLDEN);
    const text = TextDocument.applyEdits(doc, fix?.edit?.changes?.[uri] ?? []);
    assert.equal(text.split('\n')[1], '{"task": "counting", "answer": "apple", "expect": 0}');
    await lsp.change(uri, 2, [{ text }]);
    await lsp.until('the typo row resolved', () => !diagnostics().some((d) => d.range.start.line === 1));
    assert.deepEqual(
      diagnostics()
        .map((d) => d.range.start.line)
        .sort(),
      [3, 6, 7],
    );
  });

  test('renaming the task in env.py turns its rows unresolved', async () => {
    const uri = envUri();
    await lsp.open(uri, ENV, 1);
    await lsp.change(uri, 2, [{ text: ENV.replace('counting = count()', 'tally = count()') }]);
    await lsp.until('rows 0 and 1 unresolved', () =>
      [0, 1].every((line) => diagnostics().some((d) => d.range.start.line === line)),
    );
    const first = diagnostics().find((d) => d.range.start.line === 0)!;
    assert.match(first.message, /no task "counting"/);
    assert.match(first.message, /tally/);
  });
});
