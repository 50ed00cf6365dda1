/**
 * The one file watcher: the server registers it (dynamic
 * workspace/didChangeWatchedFiles) for everything it reads, so the client
 * needs none of its own, and a save is read once even when it is reported
 * more than once. The server runs as VS Code runs it: a child process over stdio.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DidChangeWatchedFilesNotification, FileChangeType } from 'vscode-languageserver-protocol';
import { pathToUri } from '../../../server/src/analysis/paths';
import { REPO, startServer, type LspClient } from './lspClient';

const WORKSPACE = mkdtempSync(join(tmpdir(), 'hs-watch-'));
cpSync(join(REPO, 'test', 'fixtures', 'workspaces', 'lsp-basic'), WORKSPACE, { recursive: true });
const ENV_PATH = join(WORKSPACE, 'envs', 'env.py');

let lsp: LspClient;

before(async () => {
  lsp = await startServer(WORKSPACE, 'source');
  await lsp.until('the first index', () => lsp.indexVersions.length > 0);
});

after(async () => {
  try {
    await lsp?.close();
  } finally {
    rmSync(WORKSPACE, { recursive: true, force: true });
  }
});

test('the server watches every file kind the client used to watch itself', async () => {
  await lsp.until('the watcher registration', () => lsp.registrations.length > 0);
  const watchers = lsp.registrations
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
  const before = await lsp.index();
  const seen = lsp.indexVersions.length;
  writeFileSync(ENV_PATH, `${readFileSync(ENV_PATH, 'utf8')}\nanother = solve(target="/tmp/y")\n`);
  const uri = pathToUri(ENV_PATH);
  await lsp.conn.sendNotification(DidChangeWatchedFilesNotification.type, {
    changes: [
      { uri, type: FileChangeType.Changed },
      { uri, type: FileChangeType.Changed },
    ],
  });
  await lsp.until('the index after the save', () => lsp.indexVersions.length > seen);
  const afterSave = await lsp.index();
  assert.ok(
    afterSave.tasks.some((t) => t.ref === 'envs/env.py::another'),
    'the saved content is indexed',
  );
  assert.equal(afterSave.version, before.version + 1, 'one read, one re-link');
});
