/**
 * The language server as VS Code runs it: a child process speaking LSP over
 * stdio, driven with vscode-jsonrpc. Run twice: from source with tsx, and as
 * the esbuild bundle (dist/server.js, which must find its .wasm files beside
 * itself; scripts/test.mjs builds before the tests).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CodeLensRequest, HoverRequest } from 'vscode-languageserver-protocol';
import { pathToUri } from '../../../server/src/analysis/paths';
import { Commands } from '../../../common/lspMessages';
import { REPO, SERVER_BUILDS, startServer, type LspClient } from './lspClient';

const WORKSPACE = join(REPO, 'test', 'fixtures', 'workspaces', 'lsp-basic');
const ENV_PATH = join(WORKSPACE, 'envs', 'env.py');
const ENV_URI = pathToUri(ENV_PATH);

for (const build of SERVER_BUILDS)
  describe(`language server over stdio, ${build === 'source' ? 'from source (tsx)' : 'bundled (dist/server.js)'}`, () => {
    let lsp: LspClient;

    before(async () => {
      lsp = await startServer(WORKSPACE, build);
      assert.ok(lsp.initializeResult.capabilities.codeLensProvider);
    });

    after(async () => {
      await lsp?.close();
    });

    test('publishes diagnostics for the scanned workspace with source hud-studio', async () => {
      await lsp.until('diagnostics of env.py', () => lsp.diagnostics.has(ENV_URI));
      const d = lsp.diagnostics.get(ENV_URI)!.diagnostics;
      assert.deepEqual(
        d.map((x) => [x.code, x.severity, x.range.start.line, x.source]),
        [['task-bad-args', 1, 15, 'hud-studio']],
      );
      await lsp.until('index notification', () => lsp.indexVersions.length > 0);
    });

    test('the custom index request returns tasks of every kind', async () => {
      const index = await lsp.index();
      assert.deepEqual(index.tasks.map((t) => t.ref).sort(), [
        'envs/env.py::broken',
        'envs/env.py::task',
        'harbor/broken',
        'harbor/hello',
        'tasks.jsonl::0',
        'tasks.jsonl::1',
      ]);
      assert.deepEqual(index.templates.map((t) => `${t.env}/${t.id}`).sort(), ['judge/verify', 'workspace/solve']);
      assert.ok(index.version > 0);
    });

    test('CodeLens names the verifier and carries the task reference', async () => {
      const lenses = (await lsp.conn.sendRequest(CodeLensRequest.type, { textDocument: { uri: ENV_URI } })) ?? [];
      const task = lenses.find(
        (l) => (l.command?.arguments?.[0] as Commands.RunTaskArgs | undefined)?.ref === 'envs/env.py::task',
      );
      assert.equal(task?.command?.title, '▶ Run task · verifier judge/verify');
      assert.equal(task?.command?.command, Commands.runTask);
      assert.ok(lenses.some((l) => l.command?.command === Commands.runTemplate));
    });

    test('an edit in an open document re-publishes its diagnostics; bad input does not crash it', async () => {
      const text = readFileSync(ENV_PATH, 'utf8');
      await lsp.open(ENV_URI, text);
      const line = text.split('\n').findIndex((l) => l.startsWith('broken = '));
      const col = text.split('\n')[line]!.indexOf('destination');
      await lsp.change(ENV_URI, 2, [
        {
          range: { start: { line, character: col }, end: { line, character: col + 'destination'.length } },
          text: 'target',
        },
      ]);
      await lsp.until(
        'the fixed diagnostics',
        () => !lsp.diagnostics.get(ENV_URI)!.diagnostics.some((d) => d.code === 'task-bad-args'),
      );
      // Requests for unknown documents and malformed positions get empty answers, and the server lives on.
      assert.deepEqual(
        await lsp.conn.sendRequest(CodeLensRequest.type, { textDocument: { uri: 'file:///nowhere/x.py' } }),
        [],
      );
      assert.equal(
        await lsp.conn.sendRequest(HoverRequest.type, {
          textDocument: { uri: ENV_URI },
          position: { line: -5, character: 1e9 },
        }),
        null,
      );
      const lenses = (await lsp.conn.sendRequest(CodeLensRequest.type, { textDocument: { uri: ENV_URI } })) ?? [];
      assert.ok(lenses.length > 0);
      await lsp.closeDocument(ENV_URI);
      await lsp.until('the on-disk diagnostics again', () =>
        lsp.diagnostics.get(ENV_URI)!.diagnostics.some((d) => d.code === 'task-bad-args'),
      );
    });
  });
