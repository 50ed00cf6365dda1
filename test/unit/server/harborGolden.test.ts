/**
 * Harbor golden solutions over real stdio against the bundled server
 * (docs/grader-workbench.md, "Harbor golden solutions"): every entry of a
 * task's golden/ that the oracle could not run is an error on its task.toml
 * naming the path and the fix, and creating, fixing or deleting files under
 * golden/ (reported by the server's own file watcher) updates them.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  DidChangeWatchedFilesNotification,
  FileChangeType,
  type Diagnostic,
  type FileEvent,
} from 'vscode-languageserver-protocol';
import { pathToUri } from '../../../server/src/analysis/paths';
import { startServer, type LspClient } from './lspClient';

// A non-root agent, so the only diagnostics on a sound task.toml would be golden ones.
const TOML = '[task]\nname = "acme/greeting"\n\n[agent]\nuser = "agent"\n\n[verifier]\ntimeout_sec = 60\n';
const CODE = 'harbor-golden-malformed';

describe('Harbor golden solutions over stdio (bundled server)', () => {
  let dir: string;
  let lsp: LspClient;
  const at = (rel: string) => join(dir, rel);
  const write = (rel: string, text: string) => {
    mkdirSync(dirname(at(rel)), { recursive: true });
    writeFileSync(at(rel), text);
  };
  const golden = (task: string): Diagnostic[] =>
    (lsp.diagnostics.get(pathToUri(at(`${task}/task.toml`)))?.diagnostics ?? []).filter((d) => d.code === CODE);
  const messages = (task: string) => golden(task).map((d) => d.message);
  const watched = (changes: [string, FileChangeType][]) =>
    lsp.conn.sendNotification(DidChangeWatchedFilesNotification.type, {
      changes: changes.map(([rel, type]): FileEvent => ({ uri: pathToUri(at(rel)), type })),
    });
  const task = (name: string) => {
    write(`${name}/task.toml`, TOML);
    write(`${name}/instruction.md`, 'Say hello.\n');
    write(`${name}/tests/test.sh`, '#!/bin/sh\necho 1 > /logs/verifier/reward.txt\n');
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hud-harbor-golden-'));
    task('greeting');
    write('greeting/golden/good/exact/solve.sh', '#!/bin/sh\necho hello > /app/out\n');
    write('greeting/golden/bad/shouted/solve.sh', '#!/bin/sh\necho HELLO > /app/out\n');
    write('greeting/golden/bad/shouted/expect', 'soon\n');
    mkdirSync(at('greeting/golden/bad/nothing'), { recursive: true });
    write('greeting/golden/good/loose.sh', '#!/bin/sh\n');
    write('greeting/golden/maybe/odd/solve.sh', '#!/bin/sh\n');
    task('filed');
    write('filed/golden', 'good: echo hello\n');
    task('clean');
    write('clean/golden/good/exact/solve.sh', '#!/bin/sh\n');
    write('clean/golden/bad/half/solve.sh', '#!/bin/sh\n');
    write('clean/golden/bad/half/expect', '<= 0.5\n');
    lsp = await startServer(dir);
  });

  after(async () => {
    await lsp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('each malformed entry is an error on task.toml naming its path and the fix', async () => {
    await lsp.until('golden diagnostics of greeting', () => golden('greeting').length >= 4);
    const byPath = new Map(messages('greeting').map((m) => [/^Harbor golden solution (\S+):/.exec(m)?.[1], m]));
    assert.deepEqual([...byPath.keys()].sort(), [
      'greeting/golden/bad/nothing',
      'greeting/golden/bad/shouted/expect',
      'greeting/golden/good/loose.sh',
      'greeting/golden/maybe',
    ]);
    assert.match(
      byPath.get('greeting/golden/bad/nothing')!,
      /no solve\.sh in bad\/nothing.*\(fix: add bad\/nothing\/solve\.sh/,
    );
    assert.match(byPath.get('greeting/golden/bad/shouted/expect')!, /"soon" is not an expectation \(fix: /);
    assert.match(byPath.get('greeting/golden/good/loose.sh')!, /is a file \(fix: move it to good\/NAME\/solve\.sh\)/);
    assert.match(
      byPath.get('greeting/golden/maybe')!,
      /says neither \(fix: move it to golden\/good\/NAME\/ or golden\/bad\/NAME\/\)/,
    );
    for (const d of golden('greeting')) {
      assert.equal(d.severity, 1, 'an error: check --golden fails on it too');
      assert.equal(d.range.start.line, 0);
    }
  });

  test('golden as a file is reported; a well-formed golden/ has no diagnostic', async () => {
    await lsp.until('the diagnostic of filed', () => golden('filed').length === 1);
    assert.match(
      messages('filed')[0]!,
      /^Harbor golden solution filed\/golden: golden is a file.*\(fix: make golden\/ a folder/,
    );
    // The clean task was indexed with the others; its task.toml has no diagnostic of any kind.
    await lsp.eventually('the clean task indexed', async () =>
      (await lsp.index()).tasks.some((t) => t.ref === 'clean'),
    );
    assert.deepEqual(lsp.diagnostics.get(pathToUri(at('clean/task.toml')))?.diagnostics ?? [], []);
  });

  test('creating the missing solve.sh clears its diagnostic (watched file created)', async () => {
    write('greeting/golden/bad/nothing/solve.sh', '#!/bin/sh\nexit 1\n');
    await watched([['greeting/golden/bad/nothing/solve.sh', FileChangeType.Created]]);
    await lsp.until('bad/nothing accepted', () => !messages('greeting').some((m) => m.includes('bad/nothing')));
    assert.equal(golden('greeting').length, 3);
  });

  test('fixing the expect file on disk clears its diagnostic (watched file changed)', async () => {
    write('greeting/golden/bad/shouted/expect', '< 0.5\n');
    await watched([['greeting/golden/bad/shouted/expect', FileChangeType.Changed]]);
    await lsp.until('the expect file accepted', () => !messages('greeting').some((m) => m.includes('expect')));
    assert.equal(golden('greeting').length, 2);
  });

  test('a new solution folder without solve.sh is reported; deleting a folder clears it', async () => {
    mkdirSync(at('greeting/golden/good/draft'));
    await watched([['greeting/golden/good/draft', FileChangeType.Created]]);
    await lsp.until('good/draft reported', () => messages('greeting').some((m) => m.includes('good/draft')));
    rmSync(at('greeting/golden/maybe'), { recursive: true });
    rmSync(at('greeting/golden/good/loose.sh'));
    await watched([
      ['greeting/golden/maybe', FileChangeType.Deleted],
      ['greeting/golden/good/loose.sh', FileChangeType.Deleted],
    ]);
    await lsp.until('only good/draft left', () => golden('greeting').length === 1);
    assert.match(messages('greeting')[0]!, /^Harbor golden solution greeting\/golden\/good\/draft: no solve\.sh/);
    rmSync(at('greeting/golden'), { recursive: true });
    await watched([['greeting/golden', FileChangeType.Deleted]]);
    await lsp.until('no golden diagnostic once golden/ is gone', () => golden('greeting').length === 0);
  });

  test('the server watches golden/ for changes as well as creations', async () => {
    await lsp.until('the watcher registration', () => lsp.registrations.length > 0);
    const globs = lsp.registrations
      .flatMap((r) => r.registrations)
      .filter((r) => r.method === DidChangeWatchedFilesNotification.method)
      .flatMap((r) =>
        (r.registerOptions as { watchers: { globPattern: string }[] }).watchers.map((w) => w.globPattern),
      );
    assert.ok(globs.includes('**/golden/**'), `registered: ${globs.join(', ')}`);
  });
});
