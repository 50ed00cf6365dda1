/**
 * `docker_image` is pulled as Harbor pulls it, tested against a real registry
 * on 127.0.0.1: the base image is pushed there, its local tag removed, and
 * the task runs from the registry's copy.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dockerClient } from '../../../client/src/engine/docker/client';
import { dockerReady } from '../docker/support';
import { HARBOR_FIXTURES, fixtureVariant, runTrial } from './support';
import { pushAndForget, removeImageQuietly, startRegistry, type LocalRegistry } from './registry';

let registry: LocalRegistry;
const pulled: string[] = [];

before(async () => {
  await dockerReady();
  registry = await startRegistry();
});

after(async () => {
  for (const image of pulled) await removeImageQuietly(image);
  await registry?.stop();
});

function withImage(image: string): string {
  const toml = readFileSync(join(HARBOR_FIXTURES, 'shared-basic', 'task.toml'), 'utf8').replace(
    '[environment]\n',
    `[environment]\ndocker_image = "${image}"\n`,
  );
  return fixtureVariant('shared-basic', { 'task.toml': toml });
}

test('a docker_image missing on this host is pulled (with progress) and the task runs', async () => {
  const image = `${registry.host}/hud-studio-test/pull-me:${randomUUID().slice(0, 8)}`;
  await pushAndForget('hud-studio/base:bookworm', image);
  pulled.push(image);
  await assert.rejects(dockerClient().getImage(image).inspect(), 'the local copy is gone before the run');
  const { outcome, events } = await runTrial(withImage(image), { agent: 'oracle' });
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  assert.equal(outcome.reward, 1);
  const logs = events.filter((e) => e.type === 'log').map((e) => (e.type === 'log' ? e.text : ''));
  assert.ok(
    logs.some((l) => l === `pulling ${image}`),
    logs.join('\n'),
  );
  assert.ok(logs.some((l) => l === `pulled ${image}`));
  await dockerClient().getImage(image).inspect();
});

test('an image the registry does not have is a clear error naming it, and nothing is left', async () => {
  const image = `${registry.host}/hud-studio-test/never-pushed:nope`;
  const { outcome } = await runTrial(withImage(image), { agent: 'oracle' });
  assert.equal(outcome.status, 'error');
  assert.equal(outcome.error?.phase, 'setup');
  assert.match(
    outcome.error?.message ?? '',
    new RegExp(`image ${image.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not available: pulling it failed`),
  );
});
