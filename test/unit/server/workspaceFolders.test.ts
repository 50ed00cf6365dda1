/**
 * A multi-root workspace whose folders change while the server runs: an
 * added folder is read, its modules resolve from each folder, and a removed
 * folder's files leave the index and their diagnostics. The server runs as
 * VS Code runs it: a child process over stdio, sent
 * workspace/didChangeWorkspaceFolders as VS Code's client sends it.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  DidChangeWatchedFilesNotification,
  DidChangeWorkspaceFoldersNotification,
  FileChangeType,
  type WorkspaceFolder,
} from 'vscode-languageserver-protocol';
import type { IndexedTask } from '../../../common/lspMessages';
import { pathToUri } from '../../../server/src/analysis/paths';
import { REPO, startServer, type LspClient } from './lspClient';

const TOP = mkdtempSync(join(tmpdir(), 'hs-folders-'));
/** The fixture workspace: a task with a bad argument (a published diagnostic) among its tasks. */
const BASIC = join(TOP, 'basic');
/** An environment whose verifier template lives in another folder, JUDGES, by a top-level module name. */
const ACTOR = join(TOP, 'actor');
const JUDGES = join(TOP, 'judges');

cpSync(join(REPO, 'test', 'fixtures', 'workspaces', 'lsp-basic'), BASIC, { recursive: true });
mkdirSync(ACTOR);
mkdirSync(JUDGES);
writeFileSync(
  join(ACTOR, 'env.py'),
  `from hud import Environment
from shared_judges import verify

actor = Environment("actor")


@actor.template(id="solve")
async def solve(level: int = 1):
    answer = yield "Solve it."
    yield 1.0


task = solve(level=2)
task.verifier = verify(expected="x")
`,
);
writeFileSync(
  join(JUDGES, 'shared_judges.py'),
  `from hud import Environment

judge = Environment("judge")


@judge.template(id="verify")
async def verify(expected: str):
    result = yield ""
    yield 1.0
`,
);

const folder = (path: string): WorkspaceFolder => ({ uri: pathToUri(path), name: basename(path) });

let lsp: LspClient;

before(async () => {
  lsp = await startServer(BASIC, 'source', [BASIC]);
  await lsp.until('the first index', () => lsp.indexVersions.length > 0);
});

after(async () => {
  try {
    await lsp?.close();
  } finally {
    rmSync(TOP, { recursive: true, force: true });
  }
});

const changeFolders = (added: string[], removed: string[]) =>
  lsp.conn.sendNotification(DidChangeWorkspaceFoldersNotification.type, {
    event: { added: added.map(folder), removed: removed.map(folder) },
  });

const task = async (ref: string): Promise<IndexedTask | undefined> =>
  (await lsp.index()).tasks.find((t) => t.ref === ref);

test('the server asks to be told of workspace folders added and removed', () => {
  const folders = lsp.initializeResult.capabilities.workspace?.workspaceFolders;
  assert.deepEqual(folders, { supported: true, changeNotifications: true });
});

test('an added folder is read, with paths relative to it', async () => {
  assert.equal(await task('env.py::task'), undefined, 'nothing of a folder not yet added');
  await changeFolders([ACTOR], []);
  await lsp.eventually('the added folder indexed', async () => (await task('env.py::task')) !== undefined);
  const t = (await task('env.py::task'))!;
  assert.equal(t.uri, pathToUri(join(ACTOR, 'env.py')));
  assert.equal(t.templateId, 'solve');
  assert.equal(t.verifier, undefined, 'shared_judges is in no folder yet');
  assert.ok(await task('envs/env.py::task'), 'the first folder stays indexed');
});

test('a module of an added folder resolves from every folder, and what imports it is linked again', async () => {
  await changeFolders([JUDGES], []);
  await lsp.eventually(
    'the verifier resolved in the added folder',
    async () => (await task('env.py::task'))?.verifier?.templateUri !== undefined,
  );
  const t = (await task('env.py::task'))!;
  assert.equal(t.verifier?.templateUri, pathToUri(join(JUDGES, 'shared_judges.py')));
  assert.equal(t.verifier?.env, 'judge');
});

test("a removed folder's tasks and diagnostics leave, and what it resolved is unresolved again", async () => {
  const broken = pathToUri(join(BASIC, 'envs', 'env.py'));
  assert.ok(lsp.diagnostics.get(broken)?.diagnostics.length, 'the fixture publishes a bad argument');
  await changeFolders([], [BASIC, JUDGES]);
  await lsp.eventually('the removed folders forgotten', async () => {
    const index = await lsp.index();
    return !index.tasks.some((t) => t.uri.startsWith(pathToUri(BASIC) + '/')) && index.templates.length === 1;
  });
  await lsp.until('the removed diagnostics cleared', () => lsp.diagnostics.get(broken)?.diagnostics.length === 0);
  assert.equal((await task('env.py::task'))?.verifier, undefined);
  const index = await lsp.index();
  assert.deepEqual(
    index.tasks.map((x) => x.ref),
    ['env.py::task'],
  );
});

test('a file change reported from a removed folder does not bring its file back', async () => {
  // One notification with a change in a kept folder after it: once that one is indexed, both were handled.
  const actorEnv = join(ACTOR, 'env.py');
  writeFileSync(actorEnv, `${readFileSync(actorEnv, 'utf8')}extra = solve(level=3)\n`);
  await lsp.conn.sendNotification(DidChangeWatchedFilesNotification.type, {
    changes: [
      { uri: pathToUri(join(BASIC, 'envs', 'env.py')), type: FileChangeType.Changed },
      { uri: pathToUri(actorEnv), type: FileChangeType.Changed },
    ],
  });
  await lsp.eventually('the kept folder change indexed', async () => (await task('env.py::extra')) !== undefined);
  assert.deepEqual(
    (await lsp.index()).tasks.map((t) => t.ref),
    ['env.py::task', 'env.py::extra'],
  );
});

test('a folder that is a folder already, even listed twice, changes no task', async () => {
  const before = await lsp.index();
  await changeFolders([ACTOR, ACTOR], []);
  await lsp.eventually('the change handled', async () => (await lsp.index()).version > before.version);
  const after = await lsp.index();
  assert.deepEqual(
    after.tasks.map((t) => t.ref),
    before.tasks.map((t) => t.ref),
  );
  assert.equal(lsp.stderr().includes('failed'), false, lsp.stderr());
});
