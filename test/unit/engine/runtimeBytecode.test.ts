import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { runtimeWithBytecode } from '../../../client/src/engine/runtimeBytecode';

const SCRATCH = mkdtempSync(join(tmpdir(), 'hs-unit-bytecode-'));
after(() => rmSync(SCRATCH, { recursive: true, force: true }));

const HOST_TAG = execFileSync('python3', ['-c', 'import sys; print(sys.implementation.cache_tag)'], {
  encoding: 'utf8',
}).trim();

function sources(name: string, body = 'VALUE = 1\n'): string {
  const dir = join(SCRATCH, name);
  mkdirSync(join(dir, 'pkg', '__pycache__'), { recursive: true });
  writeFileSync(join(dir, 'pkg', '__init__.py'), body);
  writeFileSync(join(dir, 'pkg', 'mod.py'), 'def f():\n    return 2\n');
  writeFileSync(join(dir, 'README.md'), 'not Python\n');
  // A stale cache of the source folder must not travel: the snapshot compiles its own.
  writeFileSync(join(dir, 'pkg', '__pycache__', 'stale.pyc'), 'junk');
  return dir;
}

const skipCaches = (rel: string, isDir: boolean): boolean => isDir && rel.split('/').at(-1) === '__pycache__';

// Reads the compiled table the way runtime/python/hud_studio/bytecode.py does: names, and where each module lives.
const READ_TABLE = `
import importlib.util, marshal, sys
data = open(sys.argv[1], "rb").read()
magic = importlib.util.MAGIC_NUMBER
assert data[:len(magic)] == magic
for name, (origin, code) in sorted(marshal.loads(data[len(magic):]).items()):
    print(name, origin, type(marshal.loads(code)).__name__)
`;

describe('runtimeWithBytecode: the bundled runtime with bytecode compiled once', () => {
  test('the snapshot holds the same sources and unchecked-hash bytecode for the host python', async () => {
    // A private umask: the sources, and whatever the engine writes, would be the user's alone.
    const umask = process.umask(0o077);
    let r: Awaited<ReturnType<typeof runtimeWithBytecode>>;
    const cacheRoot = join(SCRATCH, 'cache-a');
    try {
      const sourceDir = sources('a');
      r = await runtimeWithBytecode({ sourceDir, containerDir: '/opt/rt', skip: skipCaches, cacheRoot });
    } finally {
      process.umask(umask);
    }
    assert.equal(r.compiled, true, r.reason);
    assert.ok(r.dir.startsWith(join(cacheRoot, 'runtime-bytecode')), r.dir);
    assert.equal(readFileSync(join(r.dir, 'pkg', 'mod.py'), 'utf8'), 'def f():\n    return 2\n');
    assert.equal(readFileSync(join(r.dir, 'README.md'), 'utf8'), 'not Python\n');
    // One table for the host's interpreter, nothing per package; the source folder's stale cache stays behind.
    assert.deepEqual(readdirSync(join(r.dir, '.bytecode')), [`${HOST_TAG}.bin`]);
    assert.deepEqual(readdirSync(join(r.dir, 'pkg')).sort(), ['__init__.py', 'mod.py']);
    const table = execFileSync('python3', ['-c', READ_TABLE, join(r.dir, '.bytecode', `${HOST_TAG}.bin`)], {
      encoding: 'utf8',
    });
    assert.equal(table, 'pkg /opt/rt/pkg/__init__.py code\npkg.mod /opt/rt/pkg/mod.py code\n');
    // The cache is the user's alone: what is in it runs as a container's server.
    assert.equal(statSync(join(cacheRoot, 'runtime-bytecode')).mode & 0o077, 0);
    // The folder itself, which a container may mount alone, says which runtime it is and is readable by
    // any user of the container, whatever the umask.
    assert.equal(r.contentId, basename(r.dir));
    assert.equal(readFileSync(join(r.dir, '.content-id'), 'utf8'), `${r.contentId}\n`);
    for (const path of [r.dir, join(r.dir, '.bytecode'), join(r.dir, 'pkg')])
      assert.equal(statSync(path).mode & 0o777, 0o755, path);
    for (const path of [join(r.dir, '.bytecode', `${HOST_TAG}.bin`), join(r.dir, 'pkg', 'mod.py')])
      assert.equal(statSync(path).mode & 0o777, 0o644, path);
    // The container's side serves the modules from the table.
    const out = execFileSync(
      'python3',
      [
        '-c',
        'import sys; from hud_studio.bytecode import PrecompiledFinder, load_table; print(sorted(load_table(sys.argv[1])))',
        join(r.dir, '.bytecode', `${HOST_TAG}.bin`),
      ],
      { env: { ...process.env, PYTHONPATH: join(__dirname, '..', '..', '..', 'runtime', 'python') }, encoding: 'utf8' },
    );
    assert.equal(out, "['pkg', 'pkg.mod']\n");
  });

  test('a later process finds the compiled folder without running python', async () => {
    const sourceDir = sources('b');
    const cacheRoot = join(SCRATCH, 'cache-b');
    const first = await runtimeWithBytecode({ sourceDir, containerDir: '/opt/rt', skip: skipCaches, cacheRoot });
    // Another options key stands for another process: a python that does not exist is never needed.
    const again = await runtimeWithBytecode({
      sourceDir,
      containerDir: '/opt/rt',
      skip: skipCaches,
      cacheRoot,
      python: join(SCRATCH, 'no-such-python'),
    });
    assert.deepEqual(again, first);
  });

  test('changed sources get a folder of their own', async () => {
    const cacheRoot = join(SCRATCH, 'cache-c');
    const one = await runtimeWithBytecode({
      sourceDir: sources('c1'),
      containerDir: '/opt/rt',
      skip: skipCaches,
      cacheRoot,
    });
    const two = await runtimeWithBytecode({
      sourceDir: sources('c2', 'VALUE = 2\n'),
      containerDir: '/opt/rt',
      skip: skipCaches,
      cacheRoot,
    });
    assert.equal(one.compiled && two.compiled, true);
    assert.notEqual(one.dir, two.dir);
    assert.equal(readFileSync(join(two.dir, 'pkg', '__init__.py'), 'utf8'), 'VALUE = 2\n');
  });

  test('without a python to compile with, the sources go as they are and say why', async () => {
    const sourceDir = sources('d');
    const cacheRoot = join(SCRATCH, 'cache-d');
    const r = await runtimeWithBytecode({
      sourceDir,
      containerDir: '/opt/rt',
      skip: skipCaches,
      cacheRoot,
      python: join(SCRATCH, 'no-such-python'),
    });
    assert.equal(r.compiled, false);
    assert.equal(r.dir, sourceDir);
    assert.match(r.reason ?? '', /no-such-python could not compile the runtime/);
    // Nothing half-made is left for a later process to trust.
    assert.deepEqual(readdirSync(join(cacheRoot, 'runtime-bytecode')), []);
  });

  test('a source that does not compile leaves no folder behind', async () => {
    const sourceDir = sources('e', 'def broken(:\n');
    const cacheRoot = join(SCRATCH, 'cache-e');
    const r = await runtimeWithBytecode({ sourceDir, containerDir: '/opt/rt', skip: skipCaches, cacheRoot });
    assert.equal(r.compiled, false);
    assert.equal(r.dir, sourceDir);
    assert.deepEqual(readdirSync(join(cacheRoot, 'runtime-bytecode')), []);
  });
});
