import { after, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import fsPromises from 'node:fs/promises';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tar from 'tar-stream';
import { JobCopies } from '../../../client/src/engine/providers/jobCopies';
import type { PackedCopy } from '../../../client/src/engine/docker/container';
import { walkFolder } from '../../../client/src/engine/docker/tar';

const SCRATCH = mkdtempSync(join(tmpdir(), 'hs-unit-jobcopies-'));
after(() => rmSync(SCRATCH, { recursive: true, force: true }));

/** Every file of the archive with its text, names relative to `/`. */
async function filesOf(packed: PackedCopy): Promise<Record<string, string>> {
  const extract = tar.extract();
  const files: Record<string, string> = {};
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      let text = '';
      stream.on('data', (c: Buffer) => (text += c.toString()));
      stream.on('end', () => {
        if (header.type === 'file') files[header.name] = text;
        next();
      });
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  packed.open().pipe(extract);
  await done;
  return files;
}

function folder(name: string): string {
  const dir = join(SCRATCH, name);
  mkdirSync(join(dir, 'secret'), { recursive: true });
  writeFileSync(join(dir, 'env.py'), 'one\n');
  writeFileSync(join(dir, 'secret', 'key'), 'verifier only\n');
  return dir;
}

describe('JobCopies: a job packs each copy once', () => {
  test('while the folder stays as it is, every container gets the bytes packed for the first', async () => {
    const dir = folder('same');
    const copies = new JobCopies();
    const first = await copies.pack('actor', [{ hostPath: dir, dest: '/opt/env' }]);
    const second = await copies.pack('actor', [{ hostPath: dir, dest: '/opt/env' }]);
    assert.equal(second, first);
    for (let i = 0; i < 2; i++) {
      assert.deepEqual(await filesOf(second), { 'opt/env/env.py': 'one\n', 'opt/env/secret/key': 'verifier only\n' });
    }
  });

  test('an edit made while the job runs reaches the next container, even one of the same size', async () => {
    const dir = folder('edited');
    const copies = new JobCopies();
    const item = { hostPath: dir, dest: '/e' };
    const first = await copies.pack('actor', [item]);
    writeFileSync(join(dir, 'env.py'), 'two\n');
    const second = await copies.pack('actor', [item]);
    assert.notEqual(second, first);
    assert.equal((await filesOf(second))['e/env.py'], 'two\n');
    // Saved by replacing the file (a new inode), its times set back to the old ones: still a change.
    const old = statSync(join(dir, 'env.py'));
    writeFileSync(join(dir, 'env.py.new'), 'six\n');
    renameSync(join(dir, 'env.py.new'), join(dir, 'env.py'));
    utimesSync(join(dir, 'env.py'), old.atime, old.mtime);
    assert.equal((await filesOf(await copies.pack('actor', [item])))['e/env.py'], 'six\n');
    // A new file, and a mode change.
    writeFileSync(join(dir, 'added.py'), 'x\n');
    assert.ok('e/added.py' in (await filesOf(await copies.pack('actor', [item]))));
    const before = await copies.pack('actor', [item]);
    chmodSync(join(dir, 'added.py'), 0o600);
    assert.notEqual(await copies.pack('actor', [item]), before);
  });

  test('another key is packed on its own: what one phase leaves out stays out', async () => {
    const dir = folder('phases');
    const copies = new JobCopies();
    const verifier = await copies.pack('verifier', [{ hostPath: dir, dest: '/e' }]);
    const actor = await copies.pack('actor', [{ hostPath: dir, dest: '/e', skip: (rel) => rel === 'secret' }]);
    assert.deepEqual(Object.keys(await filesOf(verifier)).sort(), ['e/env.py', 'e/secret/key']);
    assert.deepEqual(Object.keys(await filesOf(actor)), ['e/env.py']);
  });

  test('a copy above the limit is packed afresh each time, from the disk', async () => {
    const dir = folder('large');
    const copies = new JobCopies(4);
    const first = await copies.pack('actor', [{ hostPath: dir, dest: '/e' }]);
    writeFileSync(join(dir, 'env.py'), 'six\n');
    const second = await copies.pack('actor', [{ hostPath: dir, dest: '/e' }]);
    assert.notEqual(second, first);
    assert.equal((await filesOf(second))['e/env.py'], 'six\n');
  });

  test('a failed pack is not kept: the next rollout tries again', async () => {
    const copies = new JobCopies();
    const missing = join(SCRATCH, 'later');
    await assert.rejects(copies.pack('actor', [{ hostPath: missing, dest: '/e' }]), /does not exist/);
    mkdirSync(missing);
    writeFileSync(join(missing, 'env.py'), 'here now\n');
    assert.deepEqual(await filesOf(await copies.pack('actor', [{ hostPath: missing, dest: '/e' }])), {
      'e/env.py': 'here now\n',
    });
  });
});

describe('JobCopies: one lstat per entry', () => {
  test('the listing that packs the copy also stamps it: each entry is stat-ed once per container', async () => {
    const dir = folder('counted');
    const copies = new JobCopies();
    const item = { hostPath: dir, dest: '/e' };
    // dir itself, env.py, secret/, secret/key
    const entries = 4;
    const calls = mock.method(fsPromises, 'lstat');
    try {
      await copies.pack('actor', [item]);
      assert.equal(calls.mock.callCount(), entries, 'a fresh pack: one listing');
      calls.mock.resetCalls();
      await copies.pack('actor', [item]);
      assert.equal(calls.mock.callCount(), entries, 'a kept pack: the listing alone, no second stat for the stamp');
      for (const c of calls.mock.calls) assert.deepEqual(c.arguments[1], { bigint: true }, 'the times in nanoseconds');
    } finally {
      calls.mock.restore();
    }
  });

  test("walkFolder's entries carry the inode and the change and modification times of their lstat", async () => {
    const dir = folder('walked');
    const [env] = (await walkFolder(dir)).filter((e) => e.rel === 'env.py');
    const st = lstatSync(join(dir, 'env.py'), { bigint: true });
    assert.ok(env);
    assert.equal(env.ino, st.ino);
    assert.equal(env.ctimeNs, st.ctimeNs);
    assert.equal(env.mtimeNs, st.mtimeNs);
    assert.equal(env.mode, Number(st.mode & 0o7777n));
    assert.equal(env.size, 4);
  });
});
