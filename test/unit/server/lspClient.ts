/**
 * The one language client of the tests: the server as a child process over
 * stdio, exactly as VS Code runs it (bundled, or from source under tsx),
 * with what it publishes collected and `until()` / `eventually()` to wait
 * for it (no sleeps). Every message goes through a typed `RequestType` /
 * `NotificationType` (the LSP's own, and this project's from
 * common/lspMessages.ts), so no test names a method string or casts a result.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import {
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  RegistrationRequest,
  ShutdownRequest,
  type InitializeResult,
  type MessageConnection,
  type PublishDiagnosticsParams,
  type RegistrationParams,
  type TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol';
import { pathToUri } from '../../../server/src/analysis/paths';
import { IndexChangedNotification, IndexRequest, type WorkspaceIndex } from '../../../common/lspMessages';

export const REPO = join(__dirname, '..', '..', '..');
export const BUNDLED_SERVER = join(REPO, 'dist', 'server.js');
export const SOURCE_SERVER = join(REPO, 'server', 'src', 'server.ts');

/** How the server process is started: the esbuild bundle users run, or the TypeScript source. */
export type ServerBuild = 'bundled' | 'source';
export const SERVER_BUILDS: readonly ServerBuild[] = ['source', 'bundled'];

const NODE_ARGS: Record<ServerBuild, string[]> = {
  bundled: [BUNDLED_SERVER, '--stdio'],
  source: ['--import', 'tsx', SOURCE_SERVER, '--stdio'],
};

export interface LspClient {
  /** For messages the helpers below do not cover; pass typed message objects to it. */
  conn: MessageConnection;
  initializeResult: InitializeResult;
  /** The latest diagnostics published per URI. */
  diagnostics: Map<string, PublishDiagnosticsParams>;
  /** Every `client/registerCapability` the server sent, in order. */
  registrations: RegistrationParams[];
  /** The version of every `hudStudio/indexChanged`, in order. */
  indexVersions: number[];
  /** Resolves when `check` holds, re-checked on every message from the server. */
  until(what: string, check: () => boolean, ms?: number): Promise<void>;
  /** Like `until` for checks that ask the server: re-asks after every notification. */
  eventually(what: string, check: () => Promise<boolean>, ms?: number): Promise<void>;
  stderr(): string;
  /** How many notifications the server has sent so far. */
  notifications(): number;
  index(): Promise<WorkspaceIndex>;
  open(uri: string, text: string, version?: number): Promise<void>;
  change(uri: string, version: number, changes: TextDocumentContentChangeEvent[]): Promise<void>;
  closeDocument(uri: string): Promise<void>;
  /** shutdown + exit, then kills the process if it does not exit on its own. */
  close(): Promise<void>;
}

/** `folders`: the workspace folders the client starts with (a multi-root workspace); `workspace` alone by default. */
export async function startServer(
  workspace: string,
  build: ServerBuild = 'bundled',
  folders: readonly string[] = [workspace],
): Promise<LspClient> {
  const entry = build === 'bundled' ? BUNDLED_SERVER : SOURCE_SERVER;
  assert.ok(existsSync(entry), `${entry} is missing: run "node scripts/build.mjs" first`);
  const child: ChildProcess = spawn(process.execPath, NODE_ARGS[build], { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const conn = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  const diagnostics = new Map<string, PublishDiagnosticsParams>();
  const registrations: RegistrationParams[] = [];
  const indexVersions: number[] = [];
  const waiters: (() => void)[] = [];
  let notified = 0;
  const wake = () => waiters.splice(0).forEach((w) => w());
  /** Records a message, counts it and wakes whoever waits on the server. */
  const noted =
    <P>(record: (p: P) => void) =>
    (p: P): void => {
      record(p);
      notified++;
      wake();
    };
  conn.onNotification(
    PublishDiagnosticsNotification.type,
    noted((p) => diagnostics.set(p.uri, p)),
  );
  conn.onNotification(
    IndexChangedNotification,
    noted(({ version }) => indexVersions.push(version)),
  );
  // Every other notification (log messages among them) only counts and wakes.
  conn.onNotification(noted((_method: string) => undefined));
  conn.onRequest(
    RegistrationRequest.type,
    noted((p) => registrations.push(p)),
  );
  conn.listen();

  const until = (what: string, check: () => boolean, ms = 20_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; stderr: ${stderr}`)), ms);
      const poll = () => {
        if (check()) {
          clearTimeout(timer);
          resolve();
        } else waiters.push(poll);
      };
      poll();
    });
  const eventually = async (what: string, check: () => Promise<boolean>, ms = 20_000) => {
    for (const deadline = Date.now() + ms; Date.now() < deadline;) {
      const seen = notified;
      if (await check()) return;
      await until(what, () => notified > seen, Math.max(1, deadline - Date.now()));
    }
    assert.fail(`timed out waiting for ${what}; stderr: ${stderr}`);
  };

  const initializeResult = await conn.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: pathToUri(workspace),
    workspaceFolders: folders.map((f) => ({ uri: pathToUri(f), name: basename(f) })),
    // As VS Code's client: it reports workspace folders added and removed.
    capabilities: { workspace: { didChangeWatchedFiles: { dynamicRegistration: true }, workspaceFolders: true } },
  });
  await conn.sendNotification(InitializedNotification.type, {});

  const close = async () => {
    try {
      await conn.sendRequest(ShutdownRequest.type);
      await conn.sendNotification(ExitNotification.type);
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
  return {
    conn,
    initializeResult,
    diagnostics,
    registrations,
    indexVersions,
    until,
    eventually,
    stderr: () => stderr,
    notifications: () => notified,
    index: () => conn.sendRequest(IndexRequest, {}),
    open: (uri, text, version = 1) =>
      conn.sendNotification(DidOpenTextDocumentNotification.type, {
        textDocument: { uri, languageId: 'python', version, text },
      }),
    change: (uri, version, contentChanges) =>
      conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges }),
    closeDocument: (uri) => conn.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } }),
    close,
  };
}
