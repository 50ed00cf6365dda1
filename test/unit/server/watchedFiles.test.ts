/**
 * The one file watcher: the server registers it (dynamic
 * workspace/didChangeWatchedFiles) for everything it reads, so the client
 * needs none of its own, and a save is read once even when it is reported
 * more than once. The server runs as VS Code runs it: a child process over stdio.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import {
  DidChangeWatchedFilesNotification,
  FileChangeType,
  RegistrationRequest,
  type RegistrationParams,
} from 'vscode-languageserver-protocol';
import { pathToUri } from '../../../server/src/analysis/paths';
import { IndexChangedNotification, IndexRequest } from '../../../common/lspMessages';

const REPO = join(__dirname, '..', '..', '..');
const WORKSPACE = mkdtempSync(join(tmpdir(), 'hs-watch-'));
cpSync(join(REPO, 'test', 'fixtures', 'workspaces', 'lsp-basic'), WORKSPACE, { recursive: true });
const ENV_PATH = join(WORKSPACE, 'envs', 'env.py');

let child: ChildProcess;
let conn: MessageConnection;
let stderr = '';
const registrations: RegistrationParams[] = [];
const indexVersions: number[] = [];
const waiters: (() => void)[] = [];

const until = (what: string, check: () => boolean, ms = 20_000) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; stderr: ${stderr}`)), ms);
    const poll = () => (check() ? (clearTimeout(timer), resolve()) : waiters.push(poll));
    poll();
  });
const wake = () => waiters.splice(0).forEach((w) => w());

before(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'server', 'src', 'server.ts'), '--stdio'], {
    cwd: REPO,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stderr!.on('data', (d) => (stderr += String(d)));
  conn = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  conn.onRequest(RegistrationRequest.type, (params) => {
    registrations.push(params);
    wake();
  });
  conn.onNotification(IndexChangedNotification, ({ version }) => {
    indexVersions.push(version);
    wake();
  });
  conn.onNotification('window/logMessage', () => undefined);
  conn.onNotification('textDocument/publishDiagnostics', () => undefined);
  conn.listen();
  await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: pathToUri(WORKSPACE),
    workspaceFolders: [{ uri: pathToUri(WORKSPACE), name: 'ws' }],
    capabilities: { workspace: { didChangeWatchedFiles: { dynamicRegistration: true } } },
  });
  await conn.sendNotification('initialized', {});
  await until('the first index', () => indexVersions.length > 0);
});

after(async () => {
  try {
    await conn.sendRequest('shutdown');
    await conn.sendNotification('exit');
  } finally {
    conn.dispose();
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    }
    rmSync(WORKSPACE, { recursive: true, force: true });
  }
});

test('the server watches every file kind the client used to watch itself', async () => {
  await until('the watcher registration', () => registrations.length > 0);
  const watchers = registrations
    .flatMap((r) => r.registrations)
    .filter((r) => r.method === DidChangeWatchedFilesNotification.method)
    .flatMap((r) => (r.registerOptions as { watchers: { globPattern: string }[] }).watchers.map((w) => w.globPattern));
  for (const glob of [
    '**/*.py',
    '**/task.toml',
    '**/*.json',
    '**/*.jsonl',
    '**/Dockerfile',
    '**/docker-compose.{yaml,yml}',
  ]) {
    assert.ok(watchers.includes(glob), `${glob} is watched (registered: ${watchers.join(', ')})`);
  }
});

test('a save reported twice (two watchers) is read once', async () => {
  const before = await conn.sendRequest(IndexRequest, {});
  const seen = indexVersions.length;
  writeFileSync(ENV_PATH, `${readFileSync(ENV_PATH, 'utf8')}\nanother = solve(target="/tmp/y")\n`);
  const uri = pathToUri(ENV_PATH);
  await conn.sendNotification(DidChangeWatchedFilesNotification.type, {
    changes: [
      { uri, type: FileChangeType.Changed },
      { uri, type: FileChangeType.Changed },
    ],
  });
  await until('the index after the save', () => indexVersions.length > seen);
  const afterSave = await conn.sendRequest(IndexRequest, {});
  assert.ok(
    afterSave.tasks.some((t) => t.ref === 'envs/env.py::another'),
    'the saved content is indexed',
  );
  assert.equal(afterSave.version, before.version + 1, 'one read, one re-link');
});
