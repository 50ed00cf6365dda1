/**
 * The bundled runtime bind-mounted read-only instead of copied
 * (docs/substrate-copy.md), and the copy it falls back to when the daemon
 * refuses the mount or mounts something else than the engine's folder.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DockerProvider, RUNTIME_DIR, type DockerSubstrate } from '../../../client/src/engine/providers/docker';
import { runtimeWithBytecode } from '../../../client/src/engine/runtimeBytecode';
import { runtimePythonDir } from '../../../client/src/engine/runtimePaths';
import { rpc } from './jsonLines';
import { BASE_IMAGE, assertNoContainersOfRollout, dockerReady, tempDir } from './support';

const ROOT_PROBE = [
  // Each attempt prints its outcome; none may succeed.
  `touch ${RUNTIME_DIR}/hud/planted.py 2>/dev/null && echo wrote || echo no-write`,
  `mount -o remount,rw ${RUNTIME_DIR} 2>/dev/null && echo remounted || echo no-remount`,
  `umount ${RUNTIME_DIR} 2>/dev/null && echo unmounted || echo no-umount`,
  `grep " ${RUNTIME_DIR} " /proc/mounts | cut -d" " -f4 | cut -d, -f1`,
].join('; ');

describe('Docker provider: the bundled runtime mounted read-only', () => {
  let envDir = '';
  const rolloutIds: string[] = [];
  before(async () => {
    await dockerReady();
    envDir = tempDir('mount-');
    writeFileSync(join(envDir, 'env.py'), 'from hud import Environment\nenv = Environment("mounted")\n');
  });
  after(async () => {
    rmSync(envDir, { recursive: true, force: true });
    for (const id of rolloutIds) await assertNoContainersOfRollout(id);
  });

  async function acquire(provider: DockerProvider, logs: string[]): Promise<DockerSubstrate> {
    const rolloutId = `test-${randomUUID()}`;
    rolloutIds.push(rolloutId);
    return (await provider.acquire(
      { envFile: join(envDir, 'env.py'), envDir, runtimeConfig: null, image: BASE_IMAGE },
      { rolloutId, phase: 'actor', log: (_, text) => logs.push(text), startupTimeoutMs: 120_000 },
    )) as DockerSubstrate;
  }

  async function assertServes(s: DockerSubstrate): Promise<void> {
    await s.serve({ envName: 'mounted', log: () => undefined });
    const ch = rpc(await s.openChannel());
    assert.equal(((await ch.call('hello'))['result'] as { env: { name: string } }).env.name, 'mounted');
    ch.close();
  }

  test("a local daemon mounts the compiled runtime's cache folder, read-only, and the server runs from it", async () => {
    const compiled = await runtimeWithBytecode({
      sourceDir: runtimePythonDir(),
      containerDir: RUNTIME_DIR,
      skip: (rel, isDir) => isDir && rel.split('/').at(-1) === '__pycache__',
    });
    assert.equal(compiled.compiled, true, compiled.reason);
    const logs: string[] = [];
    const s = await acquire(new DockerProvider(), logs);
    try {
      assert.ok(
        logs.some((l) => l.includes(`mounted read-only (${compiled.contentId})`)),
        logs.join('\n'),
      );
      const mounts = (await s.container.handle.inspect()).Mounts;
      assert.deepEqual(
        mounts.map((m) => ({ type: m.Type, source: m.Source, destination: m.Destination, rw: m.RW })),
        [{ type: 'bind', source: compiled.dir, destination: RUNTIME_DIR, rw: false }],
        'the cache folder of this runtime, and nothing else of the host',
      );
      await assertServes(s);
      // Root in the container (the server's user) can neither write there nor lift the mount.
      const r = await s.exec(['sh', '-c', ROOT_PROBE]);
      assert.equal(r.stdout, 'no-write\nno-remount\nno-umount\nro\n', r.stderr);
    } finally {
      await s.release();
    }
  });

  test('a daemon that refuses the mount: the runtime is copied, and the job stops asking', async () => {
    const logs: string[] = [];
    // A folder the daemon cannot find, as on a daemon with another file system.
    const provider = new DockerProvider({ runtimeMountSource: join(tempDir('absent-'), 'not-here') });
    for (let i = 0; i < 2; i++) {
      const s = await acquire(provider, logs);
      try {
        assert.deepEqual((await s.container.handle.inspect()).Mounts, []);
        assert.equal(s.container.hasOwnProcess, true, 'still the fast way, with the runtime in the copy');
        await assertServes(s);
      } finally {
        await s.release();
      }
    }
    const refused = logs.filter((l) => /cannot be mounted read-only \(the Docker daemon refused it/.test(l));
    assert.equal(refused.length, 1, `said once, then not tried again:\n${logs.join('\n')}`);
    assert.ok(!logs.some((l) => /is mounted read-only/.test(l)), logs.join('\n'));
  });

  test('a daemon that mounts another folder there: the container sees it, and the runtime is copied instead', async () => {
    const other = tempDir('other-runtime-');
    mkdirSync(join(other, 'hud'));
    writeFileSync(join(other, '.content-id'), 'someone-else\n');
    writeFileSync(join(other, 'hud', '__init__.py'), 'raise SystemExit("not the engine\'s runtime")\n');
    const logs: string[] = [];
    const s = await acquire(new DockerProvider({ runtimeMountSource: other }), logs);
    try {
      assert.ok(
        logs.some((l) =>
          /cannot be mounted read-only \(the container saw another folder there.*RuntimeMountMismatch/.test(l),
        ),
        logs.join('\n'),
      );
      assert.ok(
        !logs.some((l) => /with the Docker API instead/.test(l)),
        `said once, by the provider:\n${logs.join('\n')}`,
      );
      assert.deepEqual((await s.container.handle.inspect()).Mounts, []);
      await assertServes(s);
    } finally {
      await s.release();
      rmSync(other, { recursive: true, force: true });
    }
  });
});
