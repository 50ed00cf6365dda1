/** Compose leftovers of dead owners are swept; those of live owners stay. */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { dockerClient } from '../../../client/src/engine/docker/client';
import { removeOrphans } from '../../../client/src/engine/docker/cleanup';
import { LABELS } from '../../../client/src/engine/docker/types';
import { dockerReady } from '../docker/support';

before(dockerReady);

test("networks of a dead owner are removed, a live owner's are kept", async () => {
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  const docker = dockerClient();
  const labels = (pid: number) => ({
    [LABELS.managed]: 'true',
    [LABELS.ownerHost]: hostname(),
    [LABELS.ownerPid]: String(pid),
    [LABELS.rollout]: 'orphan-test',
  });
  const orphan = await docker.createNetwork({ Name: `hudstudio-orphan-test-${dead}`, Labels: labels(dead) });
  const alive = await docker.createNetwork({ Name: `hudstudio-live-test-${process.pid}`, Labels: labels(process.pid) });
  try {
    const swept = await removeOrphans();
    assert.ok(swept.networks >= 1);
    await assert.rejects(orphan.inspect(), (e: { statusCode?: number }) => e.statusCode === 404);
    assert.ok(await alive.inspect());
  } finally {
    await orphan.remove().catch(() => undefined);
    await alive.remove().catch(() => undefined);
  }
});
