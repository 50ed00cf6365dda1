/**
 * The index follows the disk over real stdio: deleting a folder (reported by
 * the client's watcher as the folder alone) forgets its tasks and clears its
 * diagnostics; a folder moved or copied in is indexed without an event per
 * file. The server asks for a watcher that reports folders at all.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DidChangeWatchedFilesNotification, FileChangeType } from 'vscode-languageserver-protocol';
import { pathToUri } from '../../../server/src/analysis/paths';
import { startServer, type LspClient } from './lspClient';

const ENV = `from hud import Environment

env = Environment("moving")


@env.template(id="solve")
async def solve(n: int):
    answer = yield "Say hi"
    yield 1.0 if answer == "hi" else 0.0


good = solve(1)
bad = solve(1, nope=1)
`;

describe('the index follows folders deleted, moved and copied on disk (bundled server over stdio)', () => {
  let dir: string;
  let lsp: LspClient;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hud-disk-'));
    mkdirSync(join(dir, 'envs', 'a'), { recursive: true });
    writeFileSync(join(dir, 'envs', 'a', 'env.py'), ENV);
    // A second file of the folder that no editor shows: the two leave in one batch (Analyzer.deleteFiles).
    writeFileSync(join(dir, 'envs', 'a', 'more_env.py'), ENV);
    lsp = await startServer(dir);
  });
  after(async () => {
    await lsp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const refs = async () => (await lsp.index()).tasks.map((t) => t.ref).sort();
  const problems = (rel: string) => lsp.diagnostics.get(pathToUri(join(dir, rel)))?.diagnostics.length ?? 0;
  const changed = (rel: string, type: FileChangeType) =>
    lsp.conn.sendNotification(DidChangeWatchedFilesNotification.type, {
      changes: [{ uri: pathToUri(join(dir, rel)), type }],
    });

  test('registers a watcher that reports created and deleted folders', async () => {
    await lsp.until('the watcher registration', () => lsp.registrations.length > 0);
    const watchers = lsp.registrations
      .flatMap((r) => r.registrations)
      .flatMap((r) => (r.registerOptions as { watchers: { globPattern: string; kind?: number }[] }).watchers);
    assert.ok(
      watchers.some((w) => w.globPattern === '**/*' && w.kind === 5),
      JSON.stringify(watchers),
    );
  });

  test('a deleted folder takes its tasks and diagnostics with it, open or not; one moved back in comes back', async () => {
    await lsp.eventually('the initial index', async () => (await refs()).length === 4);
    assert.deepEqual(await refs(), [
      'envs/a/env.py::bad',
      'envs/a/env.py::good',
      'envs/a/more_env.py::bad',
      'envs/a/more_env.py::good',
    ]);
    await lsp.until(
      'diagnostics of the bad tasks',
      () => problems('envs/a/env.py') === 1 && problems('envs/a/more_env.py') === 1,
    );
    // An editor still shows the file when its folder goes: it must not keep the tasks alive.
    const uri = pathToUri(join(dir, 'envs', 'a', 'env.py'));
    await lsp.open(uri, ENV);

    renameSync(join(dir, 'envs', 'a'), join(dir, 'moved-away'));
    rmSync(join(dir, 'moved-away'), { recursive: true });
    await changed('envs/a', FileChangeType.Deleted);
    await lsp.eventually('the folder to be forgotten', async () => (await refs()).length === 0);
    await lsp.until(
      'its diagnostics cleared',
      () => problems('envs/a/env.py') === 0 && problems('envs/a/more_env.py') === 0,
    );

    mkdirSync(join(dir, 'incoming', 'b'), { recursive: true });
    writeFileSync(join(dir, 'incoming', 'b', 'env.py'), ENV);
    renameSync(join(dir, 'incoming'), join(dir, 'envs', 'b-parent'));
    await changed('envs/b-parent', FileChangeType.Created);
    await lsp.eventually('the moved-in folder to be indexed', async () => (await refs()).length === 2);
    assert.deepEqual(await refs(), ['envs/b-parent/b/env.py::bad', 'envs/b-parent/b/env.py::good']);
    await lsp.until('diagnostics of the moved-in file', () => problems('envs/b-parent/b/env.py') === 1);
  });
});
