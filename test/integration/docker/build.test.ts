import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildImage, hashBuildContext } from '../../../client/src/engine/docker/build';
import { dockerClient } from '../../../client/src/engine/docker/client';
import { ImageBuildError } from '../../../client/src/engine/docker/errors';
import { LABELS } from '../../../client/src/engine/docker/types';
import { BASE_IMAGE, dockerReady, tempDir } from './support';

describe('image build from an environment folder', () => {
  const dir = tempDir('build');
  const images = new Set<string>();
  before(async () => {
    await dockerReady();
    // A unique marker makes this context's hash new on every run: the first build is a real miss.
    writeFileSync(join(dir, 'Dockerfile'), `FROM ${BASE_IMAGE}\nCOPY . /ctx\nRUN cat /ctx/marker.txt && ls -a /ctx\n`);
    writeFileSync(join(dir, 'marker.txt'), randomUUID());
    writeFileSync(join(dir, '.dockerignore'), 'scratch/\n*.log\n');
    mkdirSync(join(dir, 'scratch'));
    writeFileSync(join(dir, 'scratch', 'big.bin'), 'ignored');
    writeFileSync(join(dir, 'debug.log'), 'ignored');
  });
  after(async () => {
    for (const id of images)
      await dockerClient()
        .getImage(id)
        .remove({ force: true })
        .catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  test('builds once, then reuses the image while the context is unchanged', async () => {
    const lines: string[] = [];
    const first = await buildImage({ contextDir: dir, onLog: (l) => lines.push(l) });
    images.add(first.imageId);
    assert.equal(first.cached, false);
    assert.match(first.tag, /^hud-studio-env:[0-9a-f]{16}$/);
    assert.ok(
      lines.some((l) => /^Step 1\/\d+ : FROM/.test(l)),
      'build log lines are streamed',
    );
    assert.ok(!lines.some((l) => /big\.bin|debug\.log/.test(l)), '.dockerignore kept ignored files out of the context');
    const inspect = await dockerClient().getImage(first.tag).inspect();
    const { hash } = await hashBuildContext(dir);
    assert.equal(inspect.Config.Labels?.[LABELS.contextHash], hash);
    assert.equal(first.tag, `hud-studio-env:${hash.slice(0, 16)}`);

    const second = await buildImage({ contextDir: dir });
    assert.deepEqual(second, { ...first, cached: true });

    writeFileSync(join(dir, 'debug.log'), 'changed but ignored');
    assert.equal((await buildImage({ contextDir: dir })).cached, true, 'an ignored file does not invalidate the cache');
  });

  test('a changed file or mode is a new context and a new build', async () => {
    const before = await hashBuildContext(dir);
    writeFileSync(join(dir, 'marker.txt'), randomUUID());
    const edited = await hashBuildContext(dir);
    assert.notEqual(edited.hash, before.hash);
    const rebuilt = await buildImage({ contextDir: dir });
    images.add(rebuilt.imageId);
    assert.equal(rebuilt.cached, false);
    const { chmodSync } = await import('node:fs');
    chmodSync(join(dir, 'marker.txt'), 0o600);
    assert.notEqual((await hashBuildContext(dir)).hash, edited.hash, 'modes are part of the hash');
  });

  test('a failing step is a typed error that shows that step and its output', async () => {
    const bad = tempDir('build-bad');
    try {
      writeFileSync(join(bad, 'Dockerfile'), `FROM ${BASE_IMAGE}\nRUN echo the-step-output && exit 7\n`);
      await assert.rejects(buildImage({ contextDir: bad }), (err: unknown) => {
        assert.ok(err instanceof ImageBuildError, String(err));
        assert.match(err.step ?? '', /RUN echo the-step-output && exit 7/);
        assert.ok(err.stepOutput.includes('the-step-output'), err.stepOutput.join('\n'));
        assert.match(err.message, /returned a non-zero code: 7/);
        assert.equal(err.location?.file, join(bad, 'Dockerfile'));
        return true;
      });
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });

  test('a missing Dockerfile names the path', async () => {
    const empty = tempDir('build-empty');
    try {
      await assert.rejects(buildImage({ contextDir: empty }), /no Dockerfile at .*Dockerfile/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
