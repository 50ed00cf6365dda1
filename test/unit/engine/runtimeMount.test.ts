import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { onLocalSocket, runtimeMountFor } from '../../../client/src/engine/providers/runtimeMount';

const COMPILED = { dir: '/home/u/.cache/hud-studio/runtime-bytecode/abc', compiled: true, contentId: 'abc' } as const;

describe('runtimeMountFor: the runtime is mounted only where the daemon can see our files', () => {
  test('a daemon on a local unix socket gets the compiled folder, as it is named in the cache', () => {
    assert.deepEqual(runtimeMountFor(COMPILED, 'unix:///var/run/docker.sock'), {
      source: COMPILED.dir,
      contentId: 'abc',
    });
    assert.deepEqual(runtimeMountFor(COMPILED, '/run/user/1000/docker.sock'), {
      source: COMPILED.dir,
      contentId: 'abc',
    });
    assert.deepEqual(runtimeMountFor(COMPILED, 'unix:///var/run/docker.sock', { source: '/mnt/host/abc' }), {
      source: '/mnt/host/abc',
      contentId: 'abc',
    });
  });

  test('a daemon elsewhere (tcp, ssh, even on this machine) copies: its file system may not be ours', () => {
    for (const host of [
      'tcp://127.0.0.1:2375',
      'tcp://build-box:2376',
      'ssh://me@build-box',
      'npipe:////./pipe/docker_engine',
    ]) {
      assert.equal(onLocalSocket(host), false, host);
      assert.equal(runtimeMountFor(COMPILED, host), undefined, host);
    }
  });

  test('no compiled folder in the cache (no host python3), or a job that found the mount refused: copied', () => {
    assert.equal(
      runtimeMountFor({ dir: '/repo/runtime/python', compiled: false }, 'unix:///var/run/docker.sock'),
      undefined,
    );
    assert.equal(
      runtimeMountFor(COMPILED, 'unix:///var/run/docker.sock', { refused: 'the daemon refused it' }),
      undefined,
    );
  });
});
