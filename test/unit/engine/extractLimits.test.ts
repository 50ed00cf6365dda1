import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import * as tar from 'tar-stream';
import { ArchiveTooLargeError, extractTar } from '../../../client/src/engine/docker/tar';

function archive(files: Record<string, string>): Readable {
  const pack = tar.pack();
  for (const [name, text] of Object.entries(files)) pack.entry({ name }, text);
  pack.finalize();
  return pack;
}

test('an archive within the budget is extracted whole', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hs-extract-'));
  try {
    await extractTar(archive({ 'a.txt': 'aaaa', 'b.txt': 'bbbb' }), dir, { maxBytes: 8, maxEntries: 2 });
    assert.equal(readFileSync(join(dir, 'b.txt'), 'utf8'), 'bbbb');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the entry that passes the byte budget stops the extraction before it is written', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hs-extract-'));
  try {
    await assert.rejects(
      extractTar(archive({ 'a.txt': 'aaaa', 'big.bin': 'x'.repeat(100) }), dir, { maxBytes: 50 }),
      (err: unknown) => err instanceof ArchiveTooLargeError && err.entry === 'big.bin' && /50 bytes/.test(err.message),
    );
    assert.equal(existsSync(join(dir, 'big.bin')), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('so does the entry that passes the entry budget', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hs-extract-'));
  try {
    await assert.rejects(
      extractTar(archive({ a: '', b: '', c: '' }), dir, { maxEntries: 2 }),
      (err: unknown) => err instanceof ArchiveTooLargeError && err.entry === 'c',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
