import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dockerClient } from '../../../client/src/engine/docker/client';
import { LABELS } from '../../../client/src/engine/docker/types';
import { DockerProvider, type DockerSubstrate } from '../../../client/src/engine/providers/docker';
import type { EnvironmentSpec } from '../../../client/src/engine/providers/provider';
import { rpc } from './jsonLines';
import {
  BASE_IMAGE,
  acquireActor,
  assertNoContainersOfRollout,
  dockerReady,
  imageFrom,
  tempDir,
  type AcquiredActor,
} from './support';

// Every path the copy wrote, with mode, owner, type, link target and size: what a user's code can observe.
// (Bytecode caches are left out: the pre-started interpreter may have written some by then.)
const LISTING = "find /opt/hud-studio -name __pycache__ -prune -o -printf '%p %m %u:%g %y %l %s\\n' | sort";

/** The Docker events of one rollout's containers of `action`, between `since` and now. */
async function eventsOf(rolloutId: string, action: string, since: number): Promise<unknown[]> {
  const stream = await dockerClient().getEvents({
    since,
    until: Math.ceil(Date.now() / 1000) + 1,
    filters: { type: ['container'], event: [action], label: [`${LABELS.rollout}=${rolloutId}`] },
  });
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as unknown);
}

describe('Docker provider: the runtime and the folder copied through the pre-started interpreter', () => {
  let envDir = '';
  let nonRootImage = '';

  before(async () => {
    await dockerReady();
    envDir = tempDir('copy-');
    writeFileSync(join(envDir, 'env.py'), 'from hud import Environment\nenv = Environment("copied")\n');
    writeFileSync(join(envDir, 'run.sh'), '#!/bin/sh\necho ran\n');
    chmodSync(join(envDir, 'run.sh'), 0o750);
    mkdirSync(join(envDir, 'data', 'nested'), { recursive: true });
    writeFileSync(join(envDir, 'data', 'nested', 'big.bin'), Buffer.alloc(3 * 1024 * 1024 + 17, 7));
    symlinkSync('data/nested/big.bin', join(envDir, 'link-to-big'));
    nonRootImage = await imageFrom(`FROM ${BASE_IMAGE}\nUSER nobody\n`);
  });
  after(() => rmSync(envDir, { recursive: true, force: true }));

  const acquire = (provider: DockerProvider, extra: Partial<EnvironmentSpec> = {}): Promise<AcquiredActor> =>
    acquireActor(provider, envDir, extra);

  async function release(s: DockerSubstrate, rolloutId: string): Promise<void> {
    await s.release();
    await assertNoContainersOfRollout(rolloutId);
  }

  test('the same files, modes, owners and links as putArchive writes, without a putArchive', async () => {
    const fast = await acquire(new DockerProvider());
    const plain = await acquire(new DockerProvider({ prestartServer: false }));
    try {
      const [a, b] = await Promise.all([fast.s.exec(['sh', '-c', LISTING]), plain.s.exec(['sh', '-c', LISTING])]);
      assert.equal(a.exitCode, 0, a.stderr);
      assert.equal(a.stdout, b.stdout);
      assert.match(a.stdout, /^\/opt\/hud-studio\/env\/run\.sh 750 root:root f {2}19$/m);
      assert.match(a.stdout, /^\/opt\/hud-studio\/env\/link-to-big 777 root:root l data\/nested\/big\.bin /m);
      assert.match(a.stdout, /^\/opt\/hud-studio\/env\/data\/nested\/big\.bin 644 root:root f {2}3145745$/m);
      const ran = await fast.s.exec(['./run.sh']);
      assert.equal(ran.stdout, 'ran\n');
    } finally {
      await release(fast.s, fast.rolloutId);
      await release(plain.s, plain.rolloutId);
    }
    assert.deepEqual(
      await eventsOf(fast.rolloutId, 'extract-to-dir', fast.since),
      [],
      'no putArchive on the fast path',
    );
    assert.equal(
      (await eventsOf(plain.rolloutId, 'extract-to-dir', plain.since)).length,
      1,
      'the event is seen when putArchive runs',
    );
  });

  test('discovery and the server run from the copied runtime, and the end of stdin stops the server', async () => {
    const { s, rolloutId } = await acquire(new DockerProvider());
    try {
      const found = await s.execPython(['-m', 'hud_studio.discover', s.envPath, '--json']);
      assert.equal(found.exitCode, 0, found.stderr);
      assert.equal((JSON.parse(found.stdout) as { environments: { name: string }[] }).environments[0]?.name, 'copied');
      const serverLogs: string[] = [];
      await s.serve({ envName: 'copied', log: (stream, text) => stream === 'server' && serverLogs.push(text) });
      const ch = rpc(await s.openChannel());
      assert.equal(((await ch.call('hello'))['result'] as { env: { name: string } }).env.name, 'copied');
      ch.close();
      await s.release();
      assert.ok(
        serverLogs.some((l) => /\[hud-server\] stopped/.test(l)),
        `the server ran its teardown:\n${serverLogs.join('\n')}`,
      );
    } finally {
      await release(s, rolloutId);
    }
  });

  test('an image whose user is not root gets putArchive, and still serves', async () => {
    const { s, rolloutId, since } = await acquire(new DockerProvider(), { image: nonRootImage });
    try {
      const who = await s.exec(['id', '-un']);
      assert.equal(who.stdout.trim(), 'nobody');
      const found = await s.execPython(['-m', 'hud_studio.discover', s.envPath, '--json']);
      assert.equal(found.exitCode, 0, found.stderr);
      await s.serve({ envName: 'copied', log: () => undefined });
      const ch = rpc(await s.openChannel());
      await ch.call('hello');
      ch.close();
    } finally {
      await release(s, rolloutId);
    }
    assert.equal((await eventsOf(rolloutId, 'extract-to-dir', since)).length, 1);
  });

  test('a folder over 8 MiB goes by putArchive, which streams large files faster', async () => {
    const big = tempDir('big-');
    writeFileSync(join(big, 'env.py'), 'from hud import Environment\nenv = Environment("copied")\n');
    writeFileSync(join(big, 'data.bin'), Buffer.alloc(9 * 1024 * 1024, 1));
    try {
      const { s, rolloutId, since } = await acquire(new DockerProvider(), {
        envDir: big,
        envFile: join(big, 'env.py'),
      });
      try {
        const size = await s.exec(['stat', '-c', '%s', 'data.bin']);
        assert.equal(size.stdout.trim(), String(9 * 1024 * 1024));
        const found = await s.execPython(['-m', 'hud_studio.discover', s.envPath, '--json']);
        assert.equal(found.exitCode, 0, found.stderr);
      } finally {
        await release(s, rolloutId);
      }
      assert.equal((await eventsOf(rolloutId, 'extract-to-dir', since)).length, 1);
    } finally {
      rmSync(big, { recursive: true, force: true });
    }
  });

  test('an image without python3: putArchive copies, and discovery reports the missing interpreter', async () => {
    const image = await imageFrom(`FROM ${BASE_IMAGE}\nRUN rm -f /usr/bin/python3*\n`);
    const { s, rolloutId, since } = await acquire(new DockerProvider(), { image });
    try {
      const copied = await s.exec(['cat', 'env.py']);
      assert.match(copied.stdout, /Environment\("copied"\)/);
      const found = await s.execPython(['-m', 'hud_studio.discover', s.envPath, '--json']).catch((err: Error) => err);
      const text = found instanceof Error ? found.message : `${found.exitCode} ${found.stdout} ${found.stderr}`;
      assert.match(text, /"python3": executable file not found/);
    } finally {
      await release(s, rolloutId);
    }
    assert.equal((await eventsOf(rolloutId, 'extract-to-dir', since)).length, 1);
  });

  test('when the copy through python3 fails, putArchive takes over and says why', async () => {
    // /opt/hud-studio is a file in this container's image: unpacking below it fails in Python and in the daemon alike.
    const blocked = await imageFrom(`FROM ${BASE_IMAGE}\nRUN touch /opt/hud-studio\n`);
    const rolloutId = `test-${randomUUID()}`;
    const logs: string[] = [];
    const spec: EnvironmentSpec = { envFile: join(envDir, 'env.py'), envDir, runtimeConfig: null, image: blocked };
    await assert.rejects(
      new DockerProvider().acquire(spec, {
        rolloutId,
        phase: 'actor',
        log: (_, text) => logs.push(text),
        startupTimeoutMs: 120_000,
      }),
      /copying .* in container [0-9a-f]{12} failed/,
    );
    assert.ok(
      logs.some((l) => /through python3 failed \(NotADirectoryError|FileExistsError/.test(l)),
      logs.join('\n'),
    );
    await assertNoContainersOfRollout(rolloutId);
  });
});
