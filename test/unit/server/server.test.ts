/**
 * The language server as VS Code runs it: a child process speaking LSP over
 * stdio, driven with vscode-jsonrpc. Run twice: from source with tsx, and as
 * the esbuild bundle (dist/server.js, which must find its .wasm files beside
 * itself; scripts/test.mjs builds before the tests).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import type { CodeLens, PublishDiagnosticsParams } from 'vscode-languageserver';
import { pathToUri } from '../../../server/src/analysis/paths';
import { Commands, IndexChangedNotification, IndexRequest, type WorkspaceIndex } from '../../../common/lspMessages';

const REPO = join(__dirname, '..', '..', '..');
const WORKSPACE = join(REPO, 'test', 'fixtures', 'workspaces', 'lsp-basic');
const ENV_PATH = join(WORKSPACE, 'envs', 'env.py');
const ENV_URI = pathToUri(ENV_PATH);

const SERVERS: [string, string[]][] = [
  ['from source (tsx)', ['--import', 'tsx', join(REPO, 'server', 'src', 'server.ts'), '--stdio']],
  ['bundled (dist/server.js)', [join(REPO, 'dist', 'server.js'), '--stdio']],
];

for (const [name, args] of SERVERS)
  describe(`language server over stdio, ${name}`, () => {
    let child: ChildProcess;
    let conn: MessageConnection;
    let stderr = '';
    const diagnostics = new Map<string, PublishDiagnosticsParams>();
    const waiters: (() => void)[] = [];
    let indexChanged = 0;

    /** Resolves when `check` holds, re-checked on every notification. */
    const until = (what: string, check: () => boolean, ms = 20_000) =>
      new Promise<void>((resolve, reject) => {
        if (check()) return resolve();
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; stderr: ${stderr}`)), ms);
        const poll = () => {
          if (check()) {
            clearTimeout(timer);
            resolve();
          } else waiters.push(poll);
        };
        waiters.push(poll);
      });
    const wake = () => waiters.splice(0).forEach((w) => w());

    before(async () => {
      const entry = args[args.length - 2]!;
      assert.ok(existsSync(entry), `${entry} is missing: run "npm run build" first`);
      child = spawn(process.execPath, args, { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
      child.stderr!.on('data', (d) => (stderr += String(d)));
      conn = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
      conn.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
        diagnostics.set(p.uri, p);
        wake();
      });
      conn.onNotification(IndexChangedNotification.method, () => {
        indexChanged++;
        wake();
      });
      conn.onRequest('client/registerCapability', () => null);
      conn.onNotification('window/logMessage', () => undefined);
      conn.listen();
      const init = await conn.sendRequest('initialize', {
        processId: process.pid,
        rootUri: pathToUri(WORKSPACE),
        workspaceFolders: [{ uri: pathToUri(WORKSPACE), name: 'lsp-basic' }],
        capabilities: { workspace: { didChangeWatchedFiles: { dynamicRegistration: true } } },
      });
      assert.ok((init as { capabilities: { codeLensProvider?: unknown } }).capabilities.codeLensProvider);
      await conn.sendNotification('initialized', {});
    });

    after(async () => {
      try {
        await conn.sendRequest('shutdown');
        await conn.sendNotification('exit');
      } finally {
        conn.dispose();
        if (child.exitCode === null) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(() => {
              child.kill('SIGKILL');
              resolve();
            }, 5000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
          });
        }
      }
    });

    test('publishes diagnostics for the scanned workspace with source hud-studio', async () => {
      await until('diagnostics of env.py', () => diagnostics.has(ENV_URI));
      const d = diagnostics.get(ENV_URI)!.diagnostics;
      assert.deepEqual(
        d.map((x) => [x.code, x.severity, x.range.start.line, x.source]),
        [['task-bad-args', 1, 15, 'hud-studio']],
      );
      await until('index notification', () => indexChanged > 0);
    });

    test('the custom index request returns tasks of every kind', async () => {
      const index = await conn.sendRequest<WorkspaceIndex>(IndexRequest.method, {});
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
      const lenses = await conn.sendRequest<CodeLens[]>('textDocument/codeLens', { textDocument: { uri: ENV_URI } });
      const task = lenses.find(
        (l) => (l.command?.arguments?.[0] as Commands.RunTaskArgs | undefined)?.ref === 'envs/env.py::task',
      );
      assert.equal(task?.command?.title, '▶ Run task · verifier judge/verify');
      assert.equal(task?.command?.command, Commands.runTask);
      assert.ok(lenses.some((l) => l.command?.command === Commands.runTemplate));
    });

    test('an edit in an open document re-publishes its diagnostics; bad input does not crash it', async () => {
      const text = readFileSync(ENV_PATH, 'utf8');
      await conn.sendNotification('textDocument/didOpen', {
        textDocument: { uri: ENV_URI, languageId: 'python', version: 1, text },
      });
      const line = text.split('\n').findIndex((l) => l.startsWith('broken = '));
      const col = text.split('\n')[line]!.indexOf('destination');
      await conn.sendNotification('textDocument/didChange', {
        textDocument: { uri: ENV_URI, version: 2 },
        contentChanges: [
          {
            range: { start: { line, character: col }, end: { line, character: col + 'destination'.length } },
            text: 'target',
          },
        ],
      });
      await until(
        'the fixed diagnostics',
        () => !diagnostics.get(ENV_URI)!.diagnostics.some((d) => d.code === 'task-bad-args'),
      );
      // Requests for unknown documents and malformed positions get empty answers, and the server lives on.
      assert.deepEqual(
        await conn.sendRequest('textDocument/codeLens', { textDocument: { uri: 'file:///nowhere/x.py' } }),
        [],
      );
      assert.equal(
        await conn.sendRequest('textDocument/hover', {
          textDocument: { uri: ENV_URI },
          position: { line: -5, character: 1e9 },
        }),
        null,
      );
      const lenses = await conn.sendRequest<CodeLens[]>('textDocument/codeLens', { textDocument: { uri: ENV_URI } });
      assert.ok(lenses.length > 0);
      await conn.sendNotification('textDocument/didClose', { textDocument: { uri: ENV_URI } });
      await until('the on-disk diagnostics again', () =>
        diagnostics.get(ENV_URI)!.diagnostics.some((d) => d.code === 'task-bad-args'),
      );
    });
  });
