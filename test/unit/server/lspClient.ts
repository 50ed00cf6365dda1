/**
 * A language client for tests: the bundled server as a child process over
 * stdio, its diagnostics collected, and `until()` to wait for what the
 * server publishes (no sleeps).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import type { PublishDiagnosticsParams, RegistrationParams } from 'vscode-languageserver';
import { pathToUri } from '../../../server/src/analysis/paths';

export const REPO = join(__dirname, '..', '..', '..');
export const BUNDLED_SERVER = join(REPO, 'dist', 'server.js');

export interface LspClient {
  conn: MessageConnection;
  diagnostics: Map<string, PublishDiagnosticsParams>;
  until(what: string, check: () => boolean, ms?: number): Promise<void>;
  stderr(): string;
  /** How many notifications the server has sent so far. */
  notifications(): number;
  close(): Promise<void>;
}

export async function startServer(
  workspace: string,
  entry = BUNDLED_SERVER,
  onRegister: (p: RegistrationParams) => void = () => undefined,
): Promise<LspClient> {
  assert.ok(existsSync(entry), `${entry} is missing: run "npm run build" first`);
  const child: ChildProcess = spawn(process.execPath, [entry, '--stdio'], {
    cwd: REPO,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const conn = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  const diagnostics = new Map<string, PublishDiagnosticsParams>();
  const waiters: (() => void)[] = [];
  let notified = 0;
  const wake = () => {
    notified++;
    waiters.splice(0).forEach((w) => w());
  };
  conn.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
    diagnostics.set(p.uri, p);
    wake();
  });
  conn.onNotification(() => wake());
  conn.onRequest('client/registerCapability', (p: RegistrationParams) => {
    onRegister(p);
    wake();
    return null;
  });
  conn.listen();
  await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: pathToUri(workspace),
    workspaceFolders: [{ uri: pathToUri(workspace), name: 'ws' }],
    capabilities: { workspace: { didChangeWatchedFiles: { dynamicRegistration: true } } },
  });
  await conn.sendNotification('initialized', {});
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
  const close = async () => {
    try {
      await conn.sendRequest('shutdown');
      await conn.sendNotification('exit');
    } finally {
      conn.dispose();
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
    }
  };
  return { conn, diagnostics, until, stderr: () => stderr, notifications: () => notified, close };
}
