/**
 * Typing in a module that takes the server a while to analyse (here 20,000
 * generated tasks, a few hundred ms): a burst of edits is analysed once when
 * it settles, not once per keystroke with the rest queued behind, and a
 * request sent right after an edit is still answered from the edited text.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToUri } from '../../../server/src/analysis/paths';
import { SOLVE_ENV } from './helpers';
import { startServer, type LspClient } from './lspClient';

const TASKS = 20_000;
const TEXT = SOLVE_ENV + `tasks = [${Array.from({ length: TASKS }, (_, i) => `solve(level=${i})`).join(', ')}]\n`;
const LINE = TEXT.split('\n').findIndex((l) => l.startsWith('tasks = ['));
/** The first call's keyword, `level`, as a range of the document. */
const KEYWORD = { start: { line: LINE, character: 15 }, end: { line: LINE, character: 20 } };

let dir: string;
let lsp: LspClient;
const uri = () => pathToUri(join(dir, 'big.py'));
const codes = () => lsp.diagnostics.get(uri())?.diagnostics.map((d) => d.code) ?? [];
const messages = () => lsp.diagnostics.get(uri())?.diagnostics.map((d) => d.message) ?? [];

before(async () => {
  assert.equal(TEXT.split('\n')[LINE]!.slice(15, 20), 'level');
  dir = mkdtempSync(join(tmpdir(), 'hud-edit-burst-'));
  writeFileSync(join(dir, 'big.py'), TEXT);
  lsp = await startServer(dir, 'bundled');
  await lsp.eventually('the module indexed', async () => (await lsp.index()).tasks.length === TASKS, 60_000);
});

after(async () => {
  await lsp?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a burst of edits to a slow module is analysed once it settles', async () => {
  await lsp.open(uri(), TEXT, 1);
  await lsp.eventually('the open document analysed', async () => (await lsp.index()).tasks.length === TASKS);
  const before = lsp.notifications();
  // 31 edits, each breaking or mending the first call's keyword: every analysis would publish. The last
  // one writes a keyword of its own, so that its diagnostic cannot be taken for an earlier one's.
  for (let v = 2; v <= 32; v++)
    await lsp.change(uri(), v, [{ range: KEYWORD, text: v === 32 ? 'final' : v % 2 === 0 ? 'lever' : 'level' }]);
  await lsp.until('the last edit analysed', () => messages().some((m) => m.includes('final')), 60_000);
  const sent = lsp.notifications() - before;
  assert.ok(sent <= 8, `the server sent ${sent} notifications for 31 edits: it analysed them one by one`);
});

test('a request right after an edit is answered from the edited text', async () => {
  await lsp.change(uri(), 33, [{ range: KEYWORD, text: 'level' }]);
  await lsp.change(uri(), 34, [
    { range: { start: { line: LINE, character: 0 }, end: { line: LINE, character: 5 } }, text: 'suite' },
  ]);
  // No wait: the edits are still settling when the request comes, and the request analyses them first.
  const index = await lsp.index();
  assert.equal(index.tasks[0]?.ref, 'big.py::suite[0]');
  await lsp.until('the mended keyword', () => !codes().includes('task-bad-args'));
});
