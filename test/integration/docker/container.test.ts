import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { dockerClient } from '../../../client/src/engine/docker/client';
import { createContainer } from '../../../client/src/engine/docker/container';
import { ROLLOUT_NETWORK } from '../../../client/src/engine/docker/rolloutNetwork';
import { LABELS, type ManagedContainer } from '../../../client/src/engine/docker/types';
import { BASE_IMAGE, containerExists, dockerReady, tempDir } from './support';

describe('managed containers', () => {
  const rolloutId = `test-${randomUUID()}`;
  let box: ManagedContainer;
  let offline: ManagedContainer;
  before(async () => {
    await dockerReady();
    [box, offline] = await Promise.all([
      createContainer({
        image: BASE_IMAGE,
        rolloutId,
        phase: 'actor',
        cpus: 0.5,
        memoryMb: 256,
        env: { FROM_SPEC: 'yes' },
      }),
      createContainer({ image: BASE_IMAGE, rolloutId, phase: 'verifier', network: 'no-network', storageMb: 512 }),
    ]);
  });
  after(async () => {
    await Promise.all([box?.remove(), offline?.remove()]);
  });

  test('carries the ownership labels and the limits it was given', async () => {
    const info = await dockerClient().getContainer(box.id).inspect();
    assert.equal(info.Config.Labels[LABELS.managed], 'true');
    assert.equal(info.Config.Labels[LABELS.rollout], rolloutId);
    assert.equal(info.Config.Labels[LABELS.phase], 'actor');
    assert.equal(info.Config.Labels[LABELS.ownerHost], hostname());
    assert.equal(info.Config.Labels[LABELS.ownerPid], String(process.pid));
    assert.equal(info.HostConfig.NanoCpus, 500_000_000);
    assert.equal(info.HostConfig.Memory, 256 * 1024 * 1024);
    assert.equal(info.HostConfig.NetworkMode, ROLLOUT_NETWORK);
    assert.equal(box.network, ROLLOUT_NETWORK);
    assert.equal(box.imageId, (await dockerClient().getImage(BASE_IMAGE).inspect()).Id);
  });

  test('a storage limit is applied, or a warning says it was not', async () => {
    const info = await dockerClient().getContainer(offline.id).inspect();
    const applied = info.HostConfig.StorageOpt?.['size'];
    if (applied) assert.equal(applied, '512M');
    else
      assert.ok(
        offline.warnings.some((w) => /storage limit of 512 MB not applied/.test(w)),
        JSON.stringify(offline.warnings),
      );
  });

  test('network none really has no network', async () => {
    assert.equal(offline.network, 'none');
    const probe = ['python3', '-c', 'import os; print(" ".join(sorted(os.listdir("/sys/class/net"))))'];
    assert.equal((await offline.exec(probe)).stdout.trim(), 'lo');
    assert.match((await box.exec(probe)).stdout, /eth0/, 'the bridge container, by contrast, has an interface');
    const dial = await offline.exec([
      'python3',
      '-c',
      'import socket; socket.create_connection(("1.1.1.1", 53), timeout=2)',
    ]);
    assert.notEqual(dial.exitCode, 0);
    assert.match(dial.stderr, /Network is unreachable|OSError/);
  });

  test('exec separates stdout and stderr, passes env, cwd, user and stdin, and returns the exit code', async () => {
    const streamed: string[] = [];
    const r = await box.exec(['sh', '-c', 'echo "out $FROM_SPEC $EXTRA $(pwd) $(id -u)"; echo err >&2; cat; exit 3'], {
      env: { EXTRA: 'x' },
      cwd: '/tmp',
      user: 'nobody',
      stdin: 'from stdin\n',
      onOutput: (s, t) => streamed.push(`${s}:${t}`),
    });
    assert.equal(r.exitCode, 3);
    assert.equal(r.timedOut, false);
    assert.equal(r.stdout, 'out yes x /tmp 65534\nfrom stdin\n');
    assert.equal(r.stderr, 'err\n');
    assert.ok(streamed.includes('stderr:err\n'));
  });

  test('a timeout kills the command and the processes it started', async () => {
    const r = await box.exec(['sh', '-c', 'sleep 300 & sleep 301; echo never'], { timeoutMs: 500 });
    assert.equal(r.timedOut, true);
    assert.equal(r.exitCode, null);
    assert.doesNotMatch(r.stdout, /never/);
    const ps = await box.exec(['ps', '-eo', 'args']);
    assert.doesNotMatch(ps.stdout, /sleep 30[01]/, ps.stdout);
  });

  test('an abort signal kills the command', async () => {
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 300);
    const r = await box.exec(['sleep', '302'], { signal: ctl.signal });
    assert.equal(r.exitCode, null);
    assert.equal(r.timedOut, false);
    assert.doesNotMatch((await box.exec(['ps', '-eo', 'args'])).stdout, /sleep 302/);
  });

  test('spawn keeps a command running until it is signalled', async () => {
    let up: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (up = resolve));
    const run = await box.spawn(
      [
        'python3',
        '-c',
        'import signal,sys,time\nsignal.signal(signal.SIGTERM, lambda *a: (print("teardown", flush=True), sys.exit(0)))\nprint("up", flush=True)\ntime.sleep(60)',
      ],
      { onOutput: (_stream, text) => text.includes('up') && up() },
    );
    await started; // the handler is installed once "up" is printed
    await run.kill('TERM');
    const r = await run.done;
    assert.equal(r.exitCode, 0);
    assert.equal(r.stdout, 'up\nteardown\n');
  });

  test('copy in and out round-trips files, folders, modes, symlinks and bytes', async () => {
    const src = tempDir('copy-src');
    const out = tempDir('copy-out');
    try {
      mkdirSync(join(src, 'nested', 'deeper'), { recursive: true });
      writeFileSync(join(src, 'top.txt'), 'top\n');
      writeFileSync(join(src, 'nested', 'deeper', 'bytes.bin'), Buffer.from([0, 255, 10, 13, 128]));
      writeFileSync(join(src, 'run.sh'), '#!/bin/sh\necho ran\n');
      chmodSync(join(src, 'run.sh'), 0o755);
      symlinkSync('top.txt', join(src, 'link'));
      await box.copyIn(src, '/data/in');
      await box.copyIn(join(src, 'top.txt'), '/data/single');
      assert.equal((await box.exec(['/data/in/run.sh'])).stdout, 'ran\n');
      assert.equal((await box.exec(['cat', '/data/single/top.txt'])).stdout, 'top\n');
      assert.equal(
        (await box.exec(['stat', '-c', '%a', '/tmp'])).stdout.trim(),
        '1777',
        'existing folders keep their mode',
      );
      await box.copyIn(join(src, 'top.txt'), '/tmp');
      assert.equal((await box.exec(['stat', '-c', '%a', '/tmp'])).stdout.trim(), '1777');
      await box.copyIn(join(src, 'link'), '/data/links');
      assert.equal(
        (await box.exec(['readlink', '/data/links/link'])).stdout,
        'top.txt\n',
        'a symlink is copied as a symlink',
      );
      mkdirSync(join(src, 'empty'));
      await box.copyIn(join(src, 'empty'), '/data/empty/made');
      assert.equal(
        (await box.exec(['test', '-d', '/data/empty/made'])).exitCode,
        0,
        'an empty folder still creates dest',
      );

      await box.exec(['sh', '-c', 'echo made-inside > /data/in/nested/inside.txt']);
      await box.copyOut('/data/in', out);
      assert.equal(readFileSync(join(out, 'in', 'top.txt'), 'utf8'), 'top\n');
      assert.deepEqual([...readFileSync(join(out, 'in', 'nested', 'deeper', 'bytes.bin'))], [0, 255, 10, 13, 128]);
      assert.equal(readFileSync(join(out, 'in', 'nested', 'inside.txt'), 'utf8'), 'made-inside\n');
      assert.equal(lstatSync(join(out, 'in', 'run.sh')).mode & 0o777, 0o755);
      assert.equal(readlinkSync(join(out, 'in', 'link')), 'top.txt');
      await assert.rejects(box.copyOut('/no/such/path', out), /copying \/no\/such\/path out of container/);
    } finally {
      rmSync(src, { recursive: true, force: true });
      rmSync(out, { recursive: true, force: true });
    }
  });

  test('remove is forceful and idempotent', async () => {
    const c = await createContainer({ image: BASE_IMAGE, rolloutId, phase: 'actor' });
    await Promise.all([c.remove(), c.remove()]);
    await c.remove();
    assert.equal(await containerExists(c.id), false);
  });

  test('a missing image is a typed error and leaves nothing behind', async () => {
    await assert.rejects(
      createContainer({ image: 'hud-studio-test/does-not-exist:1', rolloutId, phase: 'actor' }),
      /image hud-studio-test\/does-not-exist:1 is not available/,
    );
  });
});
